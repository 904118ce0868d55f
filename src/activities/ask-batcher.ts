/**
 * A worker process's reserves, batched per ledger (docs/tenants.md, "Budgets"): the asks its
 * pipelines make within BATCH_MS reach their ledger as one signal-with-start
 * (`reserveSpendAsks`), so a burst of pipelines wakes the ledger once per batch instead of
 * once per pipeline. Only a ledger run that takes the batch signal gets one: a run of this code
 * shows the patch `ledger-lists-closed` in its `TemporalChangeVersion` search attribute. A run
 * 0.2.0 started gets each ask alone (`reserveSpendAsk`), as before.
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

/** How long an ask waits for others to the same ledger: the answer takes longer than this anyway. */
const BATCH_MS = 100;

/** A ledger run not yet known to take batches is looked at again after this long. */
const RECHECK_MS = 30_000;

/** The patch whose runs take `reserveSpendAsks` (src/workflows/tenant-ledger.ts). */
const BATCHING_PATCH = 'ledger-lists-closed';

interface Ask {
  request: ReserveRequest;
  done: (err?: Error) => void;
}

interface Pending {
  to: { tenant: string; period: string; taskQueue: string };
  asks: Ask[];
}

export class AskBatcher {
  private readonly pending = new Map<string, Pending>();
  /** Per ledger id: it takes batches (kept for good: its runs continue as new on this code), or when it was found not to. */
  private readonly checked = new Map<string, Promise<boolean> | { notBefore: number }>();

  constructor(private readonly client: Client) {}

  /** Resolves once the ask has reached the server (alone or in its batch). */
  async ask(ledger: string, to: Pending['to'], request: ReserveRequest): Promise<void> {
    if (!(await this.takesBatches(ledger))) return this.signal(to, [request], false);
    return new Promise<void>((resolve, reject) => {
      let p = this.pending.get(ledger);
      if (!p) {
        p = { to, asks: [] };
        this.pending.set(ledger, p);
        setTimeout(() => this.flush(ledger, p!), BATCH_MS);
      }
      p.asks.push({ request, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (p.asks.length >= MAX_ASKS_PER_BATCH) this.flush(ledger, p);
    });
  }

  private flush(ledger: string, p: Pending): void {
    if (this.pending.get(ledger) !== p) return; // sent already (full)
    this.pending.delete(ledger);
    this.signal(
      p.to,
      p.asks.map((a) => a.request),
      true,
    ).then(
      () => p.asks.forEach((a) => a.done()),
      (err: unknown) => p.asks.forEach((a) => a.done(err instanceof Error ? err : new Error(String(err)))),
    );
  }

  private async signal(to: Pending['to'], requests: ReserveRequest[], batch: boolean): Promise<void> {
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
