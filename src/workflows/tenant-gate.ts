/**
 * tenantGate: one workflow per tenant (id `reelflow-gate/<tenant>`) that hands out the
 * tenant's concurrency slots (docs/tenants.md, "Concurrency limits"). Pipelines ask by signal
 * and are granted by signal (samples-typescript `mutex/`): FIFO by start time within a
 * priority, never more than `limit` holders. Asks and releases are idempotent by pipeline id.
 * A holder that closed without releasing (terminated) is found by a sweep every
 * GATE_SWEEP_MS while there are holders. Continues as new before its history grows large.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { ReelflowActivities } from '../activities';
import { isPlaintext } from '../codec/plaintext-mark';
import {
  acquireSlotSignal,
  gateStateQuery,
  GATE_SWEEP_MS,
  releaseSlotSignal,
  slotGrantedSignal,
  type AcquireSlot,
  type GateInput,
  type GateState,
} from '../contract/tenant-gate';

/** Continue as new past this many events: a grant and a release cost about ten. */
const GATE_HISTORY_LIMIT = 4_000;

const sweeping = proxyActivities<ReelflowActivities>({
  startToCloseTimeout: '20s',
  retry: { initialInterval: '1s', maximumInterval: '5s', maximumAttempts: 3 },
});

export async function tenantGate(input: GateInput = {}): Promise<void> {
  const tenant = workflowInfo().workflowId.replace(/^reelflow-gate\//, '');
  const gate = new Gate(input.state ?? { tenant, limit: 1, holders: [], queue: [] });
  // A plaintext signal to a strict gate is not from a pipeline (they encrypt): a forgery is dropped.
  const forged = (m: object) => {
    if (input.codecStrict !== true || !isPlaintext(m)) return false;
    log.warn('gate signal dropped: it arrived in plaintext and this worker refuses plaintext (REELFLOW_CODEC_STRICT)');
    return true;
  };
  setHandler(acquireSlotSignal, (req) => {
    if (!forged(req)) gate.acquire(req);
  });
  setHandler(releaseSlotSignal, (req) => {
    if (!forged(req)) gate.release(req.pipelineId, 'released');
  });
  setHandler(gateStateQuery, () => gate.state);
  const historyLimit = input.historyLimit ?? GATE_HISTORY_LIMIT;
  const long = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > historyLimit;
  let lastSweep = Date.now();
  while (!long()) {
    gate.grantFree();
    if (gate.state.holders.length === 0) lastSweep = Date.now();
    const due = gate.state.holders.length ? Math.max(1, lastSweep + GATE_SWEEP_MS - Date.now()) : undefined;
    gate.changed = false;
    const wake = () => gate.changed || long();
    const woke = due === undefined ? await condition(wake).then(() => true) : await condition(wake, due);
    if (!woke) {
      await gate.sweep();
      lastSweep = Date.now();
    }
  }
  // Grants in flight settle first (a failed one drops its holder); a signal that arrives
  // meanwhile makes the server refuse the continue-as-new and hand it to this run again.
  await condition(() => allHandlersFinished() && gate.granting === 0);
  await continueAsNew<typeof tenantGate>({
    state: gate.state,
    ...(input.historyLimit ? { historyLimit } : {}),
    ...(input.codecStrict ? { codecStrict: true } : {}),
  });
}

/** The gate's holders and queue; its methods run in signal handlers and the main loop. */
class Gate {
  /** Something changed that may free or need a slot. */
  changed = false;
  /** Grant signals not yet answered by the server. */
  granting = 0;

  constructor(readonly state: GateState) {}

  acquire(req: AcquireSlot): void {
    this.state.limit = req.limit;
    this.changed = true;
    const holder = this.state.holders.find((h) => h.pipelineId === req.pipelineId);
    // A holder asking again (a retried ask): the grant may not have reached it; it gets it again.
    if (holder) return this.grant(holder.pipelineId, holder.slot);
    if (this.state.queue.some((q) => q.pipelineId === req.pipelineId)) return;
    this.state.queue.push(req);
    // Stable: equal keys keep their arrival order.
    this.state.queue.sort((a, b) => a.priorityKey - b.priorityKey || a.startedAt.localeCompare(b.startedAt));
  }

  release(pipelineId: string, why: string): void {
    const holders = this.state.holders.filter((h) => h.pipelineId !== pipelineId);
    const queue = this.state.queue.filter((q) => q.pipelineId !== pipelineId);
    if (holders.length === this.state.holders.length && queue.length === this.state.queue.length) return;
    if (holders.length !== this.state.holders.length) log.info(`slot of ${pipelineId} ${why}`);
    this.state.holders = holders;
    this.state.queue = queue;
    this.changed = true;
  }

  /** Grants the first in the queue while a slot is free. */
  grantFree(): void {
    while (this.state.holders.length < this.state.limit && this.state.queue.length > 0) {
      const req = this.state.queue.shift()!;
      const used = new Set(this.state.holders.map((h) => h.slot));
      let slot = 1;
      while (used.has(slot)) slot++;
      this.state.holders.push({ ...req, slot, grantedAt: new Date().toISOString() });
      this.grant(req.pipelineId, slot);
    }
  }

  /** Signals the grant; a pipeline that is gone loses its slot, and the next one is granted. */
  private grant(pipelineId: string, slot: number): void {
    this.granting++;
    getExternalWorkflowHandle(pipelineId)
      .signal(slotGrantedSignal, { slot, limit: this.state.limit })
      .catch(() => this.release(pipelineId, 'dropped: the pipeline is gone'))
      .finally(() => this.granting--);
  }

  /** Holders that closed without releasing (terminated, timed out) give their slot back. */
  async sweep(): Promise<void> {
    const ids = this.state.holders.map((h) => h.pipelineId);
    try {
      for (const id of await sweeping.closedSlotHolders(ids)) this.release(id, 'swept: the pipeline closed');
    } catch (err) {
      log.warn(`sweep of the slot holders failed; next in ${GATE_SWEEP_MS} ms: ${String(err)}`);
    }
  }
}
