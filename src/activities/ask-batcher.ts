/**
 * A worker process's reserves, batched per ledger (docs/tenants.md, "Budgets"): while one
 * signal-with-start to a ledger is in flight, the asks its pipelines make to that ledger wait,
 * and go together as the next one (`reserveSpendAsks`), so a burst of pipelines wakes the
 * ledger once per batch instead of once per pipeline. No ask waits for a timer: a local
 * activity holds its workflow task meanwhile. Only a ledger run that takes the batch signal
 * gets one: a run of this code shows the patch `ledger-lists-closed` in its
 * `TemporalChangeVersion` search attribute. A run 0.2.0 started gets each ask alone
 * (`reserveSpendAsk`), as before.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  LEDGER_WORKFLOW,
  MAX_ASKS_PER_BATCH,
  ledgerStartOptions,
  reserveBatchSignal,
  reserveSignal,
  type ReserveRequest,
} from '../contract/ledger';

/** A ledger run not yet known to take batches is looked at again after this long. */
const RECHECK_MS = 30_000;

/** The patch whose runs take `reserveSpendAsks` (src/workflows/tenant-ledger.ts). */
const BATCHING_PATCH = 'ledger-lists-closed';

interface Ask {
  request: ReserveRequest;
  done: (err?: Error) => void;
}

interface Queue {
  to: { tenant: string; period: string; taskQueue: string };
  asks: Ask[];
  sending: boolean;
}

export class AskBatcher {
  private readonly queues = new Map<string, Queue>();
  /** Per ledger id: it takes batches (kept for good: its runs continue as new on this code), or when it was found not to. */
  private readonly checked = new Map<string, Promise<boolean> | { notBefore: number }>();

  constructor(private readonly client: Client) {}

  /** Resolves once the ask has reached the server (alone or in its batch). */
  async ask(ledger: string, to: Queue['to'], request: ReserveRequest): Promise<void> {
    if (!(await this.takesBatches(ledger))) return this.signal(to, [request], false);
    return new Promise<void>((resolve, reject) => {
      const q = this.queues.get(ledger) ?? { to, asks: [], sending: false };
      this.queues.set(ledger, q);
      q.asks.push({ request, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!q.sending) this.send(ledger, q);
    });
  }

  /** The asks waiting for this ledger, as one signal; those that arrive meanwhile go next. */
  private send(ledger: string, q: Queue): void {
    const asks = q.asks.splice(0, MAX_ASKS_PER_BATCH);
    q.sending = true;
    this.signal(
      q.to,
      asks.map((a) => a.request),
      true,
    )
      .then(
        () => asks.forEach((a) => a.done()),
        (err: unknown) => asks.forEach((a) => a.done(err instanceof Error ? err : new Error(String(err)))),
      )
      .finally(() => {
        q.sending = false;
        if (q.asks.length > 0) this.send(ledger, q);
        else this.queues.delete(ledger);
      });
  }

  private async signal(to: Queue['to'], requests: ReserveRequest[], batch: boolean): Promise<void> {
    await this.client.workflow.signalWithStart(LEDGER_WORKFLOW, {
      ...ledgerStartOptions(to.tenant, to.period, to.taskQueue),
      ...(batch
        ? { signal: reserveBatchSignal, signalArgs: [{ asks: requests }] }
        : { signal: reserveSignal, signalArgs: [requests[0]] }),
    });
  }

  private async takesBatches(ledger: string): Promise<boolean> {
    const known = this.checked.get(ledger);
    if (known instanceof Promise) return known;
    if (known && Date.now() < known.notBefore) return false;
    const check = runTakesBatches(this.client, ledger).then(
      (yes) => {
        if (!yes) this.checked.set(ledger, { notBefore: Date.now() + RECHECK_MS });
        return yes;
      },
      () => {
        this.checked.set(ledger, { notBefore: Date.now() + RECHECK_MS });
        return false;
      },
    );
    this.checked.set(ledger, check);
    return check;
  }
}

/** The ledger's current run takes batches; none open: the signal-with-start opens one of this code. */
export async function runTakesBatches(client: Client, ledger: string): Promise<boolean> {
  try {
    const d = await client.workflow.getHandle(ledger).describe();
    if (d.status.name !== 'RUNNING') return true;
    const versions = d.searchAttributes.TemporalChangeVersion;
    return Array.isArray(versions) && versions.some((v) => String(v).startsWith(BATCHING_PATCH));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return true;
    throw err;
  }
}
