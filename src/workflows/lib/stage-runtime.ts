/**
 * Per-child-workflow state and message handlers shared by every stage: vendor task ids
 * recorded the moment they are known, vendor call counts, callbacks (hints, and task ids
 * offered for proof: callback-book.ts), the operator's decisions for ambiguous creates,
 * and reports to the parent pipeline. Created inside the workflow function: no
 * module-level state.
 */
import {
  condition,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
  defineQuery,
  log,
} from '@temporalio/workflow';
import {
  callbackVerdictQuery,
  operatorDecisionSignal,
  resolveCreateUpdate,
  stageReportSignal,
  vendorCallbackSignal,
  type CreateDecision,
  type PendingDecision,
  type ResolveCreateInput,
  type StageName,
  type StageReport,
  type VendorTaskKind,
  type VendorTaskRecord,
} from '../messages';
import { CallbackBook, type ProofSpec } from './callback-book';
import { TASK_ID_PATTERN } from './offers';
import { printable } from './printable';
import type { StageOutput } from './stage-output';

export const stageStatusQuery = defineQuery<StageReport>('stageStatus');

export interface StageCarry {
  vendorTasks: VendorTaskRecord[];
  calls: Record<string, number>;
  /** Per vendor interface: no call before this time (epoch ms, the latest Retry-After). */
  holds?: Record<string, number>;
}

export class StageRuntime {
  readonly vendorTasks: VendorTaskRecord[];
  readonly calls: Record<string, number>;
  private readonly holds: Record<string, number>;
  private readonly decisions = new Map<string, CreateDecision>();
  private readonly book: CallbackBook;
  /** The waiting reason without the offers, which are appended as they change. */
  private waitingBase = '';
  private reportQueued = false;
  waiting: PendingDecision | undefined;
  stuck = false;
  progress: { done: number; total: number } | undefined;
  detail: string | undefined;

  constructor(
    readonly stage: StageName,
    carry?: StageCarry,
  ) {
    this.vendorTasks = carry ? [...carry.vendorTasks] : [];
    this.calls = carry ? { ...carry.calls } : {};
    this.book = new CallbackBook({
      count: (endpoint) => this.count(endpoint),
      stepOwning: (id) => this.vendorTasks.find((t) => t.id === id && !t.orphan)?.step,
      stateOf: (id) => this.vendorTasks.find((t) => t.id === id)?.state,
      orphan: (kind, id, step, attempt) => {
        this.vendorTasks.push({ kind, id, step, attempt, via: 'callback', orphan: true });
        this.report();
      },
      offersChanged: (step, attempt) => this.offersChanged(step, attempt),
    });
    setHandler(vendorCallbackSignal, (cb) => this.book.receive(cb));
    setHandler(callbackVerdictQuery, (cb) => this.book.verdict(cb));
    this.holds = { ...carry?.holds };
    setHandler(operatorDecisionSignal, (input) => this.onDecision(input));
    setHandler(resolveCreateUpdate, (input) => this.resolve(input), { validator: (input) => this.validate(input) });
    setHandler(stageStatusQuery, () => this.snapshot());
  }

  // ---- bookkeeping

  count(endpoint: string): void {
    this.calls[endpoint] = (this.calls[endpoint] ?? 0) + 1;
  }

  /** The earliest time the next call to `iface` may go out (a 429's Retry-After holds them all). */
  notBefore(iface: string): number {
    return this.holds[iface] ?? 0;
  }

  holdInterface(iface: string, until: number): void {
    if (until > (this.holds[iface] ?? 0)) this.holds[iface] = until;
  }

  /**
   * Marks the attempt in flight for a step, so callbacks can be matched to it; `proof`
   * says how a task id offered for it is checked (none: offers are refused).
   */
  beginAttempt(step: string, attempt: number, kind: VendorTaskKind, proof?: ProofSpec): void {
    this.book.begin(step, attempt, kind, proof);
  }

  /** The attempt's create came back, naming its task or not: the window for `created_at` closes. */
  endAttempt(step: string, attempt: number, taskId?: string): void {
    this.book.end(step, attempt, taskId);
  }

  /** The step's task is done: later callbacks for it are dropped unqueried. */
  settle(step: string): void {
    this.book.settle(step);
  }

  record(task: Omit<VendorTaskRecord, 'orphan'>): void {
    const existing = this.vendorTasks.find((t) => t.kind === task.kind && t.id === task.id);
    if (existing) {
      if (task.state) existing.state = task.state;
    } else {
      this.vendorTasks.push({ ...task });
    }
    this.book.known(task.step, task.attempt, task.id);
    this.report();
  }

  setState(kind: VendorTaskKind, id: string, state: string): void {
    const t = this.vendorTasks.find((x) => x.kind === kind && x.id === id);
    if (t && t.state !== state) t.state = state;
  }

  carry(): StageCarry {
    return { vendorTasks: this.vendorTasks, calls: this.calls, holds: this.holds };
  }

  /** The stage's return value: its result plus the final bookkeeping for the parent. */
  output<T>(result: T): StageOutput<T> {
    return { result, ...this.carry(), detail: this.detail, progress: this.progress };
  }

  // ---- callbacks: hints, and offers that need proof

  /** The task id a callback offered for this attempt and that passed the proof, if any. */
  provenTask(step: string, attempt: number): string | undefined {
    return this.book.provenTask(step, attempt);
  }

  /** Whether any callback offered a task id for this attempt (checked or not). */
  hasOffers(step: string, attempt: number): boolean {
    return this.book.hasOffers(step, attempt);
  }

  /**
   * Workflow time of the last vendor query of this step's task made outside the poll
   * loop (checking an offered id), so a poll can keep the interface's minimum interval.
   */
  lastQueryAt(step: string): number | undefined {
    return this.book.lastQueryAt(step);
  }

  /** Waits up to `ms` or until a callback for `step` brings news; returns true on a hint. */
  async waitForHint(step: string, ms: number, summary: string): Promise<boolean> {
    const hinted = await condition(() => this.book.hinted(step), ms, { summary });
    this.book.clearHint(step);
    return hinted;
  }

  private offersChanged(step: string, attempt: number): void {
    if (this.waiting?.step !== step || this.waiting.attempt !== attempt) return;
    this.waiting.reason = this.waitingReason(step, attempt);
    this.report();
  }

  private waitingReason(step: string, attempt: number): string {
    const offers = this.book.describe(step, attempt);
    return offers ? `${this.waitingBase} Task ids offered by callbacks: ${offers}` : this.waitingBase;
  }

  // ---- operator decisions (policy `ask`)

  private validate(input: ResolveCreateInput): void {
    if (!this.waiting) throw new Error(`${workflowInfo().workflowId} is not waiting for an operator decision`);
    if (input.step && input.step !== this.waiting.step) {
      throw new Error(`step "${input.step}" is not waiting; "${this.waiting.step}" is`);
    }
    validateDecision(input.decision);
  }

  private onDecision(input: ResolveCreateInput): void {
    if (!this.waiting) return; // stale: the wait ended (e.g. a late callback named the task)
    try {
      this.validate(input);
    } catch (err) {
      log.warn(`ignored an invalid operator decision: ${printable(String(err))}`);
      return;
    }
    this.decisions.set(this.waiting.step, input.decision);
  }

  private async resolve(input: ResolveCreateInput) {
    const waiting = this.waiting!;
    this.decisions.set(waiting.step, input.decision);
    await condition(() => this.waiting?.step !== waiting.step);
    return { stage: this.stage, step: waiting.step, accepted: input.decision };
  }

  /**
   * Blocks until an operator decides, or a task id a callback offers for this attempt
   * passes the proof. The reason lists every offered id and what became of it.
   * Visible as `waiting-operator` in the parent's status and current details.
   */
  async awaitDecision(step: string, attempt: number, reason: string): Promise<CreateDecision | { proven: string }> {
    this.waitingBase = reason;
    this.waiting = {
      workflowId: workflowInfo().workflowId,
      stage: this.stage,
      step,
      attempt,
      reason: this.waitingReason(step, attempt),
      since: new Date().toISOString(),
    };
    this.report();
    await condition(() => this.decisions.has(step) || this.provenTask(step, attempt) !== undefined);
    const decision = this.decisions.get(step);
    this.decisions.delete(step);
    this.waiting = undefined;
    this.report();
    return decision ?? { proven: this.provenTask(step, attempt)! };
  }

  // ---- reporting to the parent

  snapshot(): StageReport {
    return {
      stage: this.stage,
      progress: this.progress,
      detail: this.detail,
      vendorTasks: this.vendorTasks,
      calls: this.calls,
      waiting: this.waiting ?? null,
      stuck: this.stuck,
    };
  }

  /** Sends the parent a snapshot. Fire-and-forget: a closed parent must not fail the stage. */
  report(): void {
    const parent = workflowInfo().parent;
    if (!parent || this.reportQueued) return;
    // One signal per burst, sent after the current synchronous step with the latest
    // snapshot: two signals sent in one workflow task may reach the parent out of order.
    this.reportQueued = true;
    void Promise.resolve()
      .then(() => {
        this.reportQueued = false;
        return getExternalWorkflowHandle(parent.workflowId).signal(stageReportSignal, this.snapshot());
      })
      .catch((err) => log.warn('could not report to parent', { error: String(err) }));
  }
}

export function validateDecision(decision: unknown): asserts decision is CreateDecision {
  if (!decision || typeof decision !== 'object') throw new Error('decision: required ({taskId} | {resubmit:true} | {abandon:true})');
  const d = decision as Record<string, unknown>;
  const keys = Object.keys(d);
  if (keys.length !== 1) throw new Error('decision: exactly one of taskId, resubmit, abandon');
  if ('taskId' in d && (typeof d.taskId !== 'string' || !TASK_ID_PATTERN.test(d.taskId))) {
    throw new Error('decision.taskId: a vendor task id (letters, digits, . _ : -)');
  }
  if ('resubmit' in d && d.resubmit !== true) throw new Error('decision.resubmit: must be true');
  if ('abandon' in d && d.abandon !== true) throw new Error('decision.abandon: must be true');
  if (!['taskId', 'resubmit', 'abandon'].includes(keys[0])) throw new Error(`decision.${keys[0]}: unknown field`);
}
