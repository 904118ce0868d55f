/**
 * A definition check's plan ask reaches its ledger in a batch (docs/tenants.md, "Budgets"): the
 * plan asks this worker makes to one ledger within BATCH_WINDOW_MS go in one
 * `reserveAsksSignal`, so a burst of pipelines costs the ledger a workflow task per batch, not
 * per pipeline. The check does not wait for the signal: its local activity holds one of the
 * worker's few workflow-task slots, so waiting would let only that many asks meet. An ask lost
 * here (the process died, or the server refused it for RETRY_FOR_MS) costs money nothing: the
 * first create finds no grant (grant-pull.ts), sends nothing, and the pipeline asks again by a
 * `reserveSignal` of its own, which a ledger of any version takes. A ledger run started before
 * batches (it says so when asked, once per worker) gets each ask by a `reserveSignal` too.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  LEDGER_WORKFLOW,
  MAX_ASKS_PER_SIGNAL,
  ledgerId,
  ledgerStartOptions,
  reserveAsksSignal,
  reserveSignal,
  takesAskBatchesQuery,
  type ReserveRequest,
} from '../contract/ledger';

/** How long an enqueued ask waits for others to the same ledger. */
export const BATCH_WINDOW_MS = 100;

/** An enqueued ask whose signal failed is sent again for this long, well inside the create's grant wait. */
const RETRY_FOR_MS = 10_000;
const RETRY_AFTER_MS = 1_000;

/** A ledger run that takes no batches is asked again this much later (it may have continued as new). */
const RECHECK_AFTER_MS = 60_000;

/** Ledger ids whose answer is kept: a tenant's ledger changes with each period, so the oldest go. */
const MAX_KNOWN_LEDGERS = 1_000;

interface Waiting {
  request: ReserveRequest;
  /** Sent again until then when its signal fails. */
  until: number;
}

interface Route {
  client: Client;
  tenant: string;
  period: string;
  taskQueue: string;
}

export class AskBatcher {
  private readonly queues = new Map<string, Waiting[]>();
  /** Per ledger id: its run takes batches, or until when it is taken not to. */
  private readonly takes = new Map<string, true | number>();

  /** Sent within BATCH_WINDOW_MS, with the other asks to the ledger by then; nothing to wait for. */
  enqueue(route: Route, request: ReserveRequest): void {
    const key = `${route.taskQueue}\n${ledgerId(route.tenant, route.period)}`;
    const w = { request, until: Date.now() + RETRY_FOR_MS };
    const queue = this.queues.get(key);
    if (queue) return void queue.push(w);
    this.queues.set(key, [w]);
    void this.drain(key, route);
  }

  /** One signal at a time per ledger; what is asked meanwhile goes in the next. */
  private async drain(key: string, route: Route): Promise<void> {
    await pause(BATCH_WINDOW_MS);
    for (;;) {
      const queue = this.queues.get(key)!;
      if (queue.length === 0) return void this.queues.delete(key);
      const batch = queue.splice(0, MAX_ASKS_PER_SIGNAL);
      try {
        await this.signalAsks(route, batch);
      } catch {
        const again = batch.filter((w) => w.until > Date.now());
        queue.unshift(...again);
        if (again.length > 0) await pause(RETRY_AFTER_MS);
      }
    }
  }

  /** One signal-with-start for the batch, or one each to a ledger run that takes no batches. */
  private async signalAsks(route: Route, batch: Waiting[]): Promise<void> {
    const start = ledgerStartOptions(route.tenant, route.period, route.taskQueue);
    const { workflow } = route.client;
    if (await this.takesBatches(route.client, start.workflowId)) {
      const asks = batch.map((w) => w.request);
      return void (await workflow.signalWithStart(LEDGER_WORKFLOW, {
        ...start,
        signal: reserveAsksSignal,
        signalArgs: [asks],
      }));
    }
    for (const w of batch)
      await workflow.signalWithStart(LEDGER_WORKFLOW, { ...start, signal: reserveSignal, signalArgs: [w.request] });
  }

  /** No run yet: the ask starts one, with this code. Asked once; a refusal, or no answer, is asked again later. */
  private async takesBatches(client: Client, id: string): Promise<boolean> {
    const known = this.takes.get(id);
    if (known === true || (known !== undefined && known > Date.now())) return known === true;
    const answer = await client
      .withDeadline(Date.now() + 5_000, () => client.workflow.getHandle(id).query(takesAskBatchesQuery))
      .catch((err: unknown) => err instanceof WorkflowNotFoundError);
    if (this.takes.size >= MAX_KNOWN_LEDGERS) this.takes.delete(this.takes.keys().next().value!);
    this.takes.set(id, answer === true ? true : Date.now() + RECHECK_AFTER_MS);
    return answer === true;
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The process's batcher: the plan asks of every definition check this worker runs share its signals. */
export const workerAsks = new AskBatcher();
