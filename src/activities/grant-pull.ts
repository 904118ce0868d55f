/**
 * A pipeline's plan grant, read by its first create activity before the vendor call
 * (docs/tenants.md, "Budgets"): the ledger sends no answer signal for a pulled ask, so no
 * workflow task of the pipeline waits on it. One reader per process: the asks of every
 * create waiting on a ledger are read together, by one `spendAnswersQuery` per tick.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { spendAnswersQuery, type PulledAnswer, type PulledAsk } from '../contract/ledger';
import { FailureType } from '../failures';

/** How often a ledger is read while creates wait on it. */
const PULL_EVERY_MS = 250;

/** One read's deadline: a ledger no worker runs never answers a query, and the waits must still end. */
const READ_DEADLINE_MS = 5_000;

/**
 * The longest a create waits for its grant: at most a third of its own timeout (a timeout is
 * an unknown outcome). Past it the pipeline asks again and waits for the answer by signal.
 */
export const PULL_WAIT_MS = 20_000;

interface Waiter {
  ask: PulledAsk;
  until: number;
  done(answer: PulledAnswer): void;
}

export class GrantReader {
  private readonly waiting = new Map<string, Waiter[]>();

  /** The ask's answer, or null when the ledger has not answered within `waitMs`. */
  read(client: Client, ask: PulledAsk, waitMs = PULL_WAIT_MS): Promise<PulledAnswer> {
    return new Promise((done) => {
      const list = this.waiting.get(ask.ledgerId);
      const waiter = { ask, until: Date.now() + waitMs, done };
      if (list) return void list.push(waiter);
      this.waiting.set(ask.ledgerId, [waiter]);
      void this.readLoop(client, ask.ledgerId);
    });
  }

  private async readLoop(client: Client, ledgerId: string): Promise<void> {
    for (;;) {
      await new Promise((r) => setTimeout(r, PULL_EVERY_MS));
      const list = this.waiting.get(ledgerId)!;
      const asked = list.slice();
      const asks = asked.map(({ ask }) => ({ chain: ask.chain, key: ask.key, ask: ask.ask }));
      const answers = await client
        .withDeadline(Date.now() + READ_DEADLINE_MS, () =>
          client.workflow.getHandle(ledgerId).query(spendAnswersQuery, asks),
        )
        .catch(() => [] as PulledAnswer[]); // a busy or continuing ledger: read again next tick
      const now = Date.now();
      const open = asked.filter((w, i) => {
        const answer = Array.isArray(answers) ? (answers[i] ?? null) : null;
        if (answer === null && now < w.until) return true;
        w.done(answer);
        return false;
      });
      // Asks added during the query are at the list's end: keep them too.
      const added = list.slice(asked.length);
      if (open.length + added.length === 0) return void this.waiting.delete(ledgerId);
      this.waiting.set(ledgerId, [...open, ...added]);
    }
  }
}

/**
 * Before a create's vendor call: its pipeline's plan grant, when the create carries one to
 * read. Not granted (over budget, refused, or no answer in time), it fails non-retryably with
 * `SpendNotGranted` and the answer as its detail: nothing was sent, and the pipeline decides.
 */
export async function awaitGrant(reader: GrantReader, ask: PulledAsk | undefined): Promise<void> {
  if (!ask) return;
  const { client, info } = Context.current();
  const waitMs = Math.min(PULL_WAIT_MS, info.startToCloseTimeoutMs / 3);
  const answer = await reader.read(client, ask, waitMs);
  if (answer?.granted) return;
  throw ApplicationFailure.create({
    type: FailureType.SpendNotGranted,
    message: answer
      ? `the ledger ${ask.ledgerId} did not grant the pipeline's plan`
      : `the ledger ${ask.ledgerId} had not answered within ${Math.round(waitMs / 1000)} s`,
    nonRetryable: true,
    details: [answer],
  });
}
