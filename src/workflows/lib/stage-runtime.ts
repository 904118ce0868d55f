/**
 * Per-child-workflow state and message handlers shared by every stage: vendor task ids
 * recorded the moment they are known, vendor call counts, callbacks (hints), the
 * operator's decisions for ambiguous creates, and reports to the parent pipeline.
 * Created inside the workflow function: no module-level state.
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
  operatorDecisionSignal,
  resolveCreateUpdate,
  stageReportSignal,
  vendorCallbackSignal,
  type CreateDecision,
  type PendingDecision,
  type ResolveCreateInput,
  type StageName,
  type StageReport,
  type VendorCallbackSignal,
  type VendorTaskKind,
  type VendorTaskRecord,
} from '../messages';

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
  private readonly callbacks = new Map<string, VendorCallbackSignal>();
  private readonly hints = new Set<string>();
  private readonly decisions = new Map<string, CreateDecision>();
  waiting: PendingDecision | undefined;
  stuck = false;
  progress: { done: number; total: number } | undefined;
  detail: string | undefined;
  /** Which (step, attempt) each step's current vendor task belongs to. */
  private readonly current = new Map<string, { attempt: number; taskId?: string; kind: VendorTaskKind }>();

  constructor(
    readonly stage: StageName,
    carry?: StageCarry,
  ) {
    this.vendorTasks = carry ? [...carry.vendorTasks] : [];
    this.calls = carry ? { ...carry.calls } : {};
    this.holds = { ...carry?.holds };
    setHandler(vendorCallbackSignal, (cb) => this.onCallback(cb));
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

  /** Marks the attempt in flight for a step, so callbacks can be matched to it. */
  beginAttempt(step: string, attempt: number, kind: VendorTaskKind): void {
    this.current.set(step, { attempt, kind });
  }

  record(task: Omit<VendorTaskRecord, 'orphan'>): void {
    const existing = this.vendorTasks.find((t) => t.kind === task.kind && t.id === task.id);
    if (existing) {
      if (task.state) existing.state = task.state;
    } else {
      this.vendorTasks.push({ ...task });
    }
    const cur = this.current.get(task.step);
    if (cur && cur.attempt === task.attempt) cur.taskId = task.id;
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

  // ---- callbacks: hints only; the workflow confirms each with one query

  private onCallback(cb: VendorCallbackSignal): void {
    const key = `${cb.step}#${cb.attempt}`;
    if (!this.callbacks.has(key)) this.callbacks.set(key, cb);
    this.hints.add(cb.step);
    const cur = this.current.get(cb.step);
    if (cb.taskId && cur && cb.attempt !== cur.attempt && !this.vendorTasks.some((t) => t.id === cb.taskId)) {
      // A superseded attempt did create a task after all: it may run (and cost) at the vendor.
      this.vendorTasks.push({ kind: cur.kind, id: cb.taskId, step: cb.step, attempt: cb.attempt, via: 'callback', orphan: true });
      log.warn('callback revealed a task of a superseded attempt', { step: cb.step, attempt: cb.attempt });
      this.report();
    }
  }

  callbackFor(step: string, attempt: number): VendorCallbackSignal | undefined {
    return this.callbacks.get(`${step}#${attempt}`);
  }

  /** Waits up to `ms` or until a callback for `step` arrives; returns true on a hint. */
  async waitForHint(step: string, ms: number, summary: string): Promise<boolean> {
    const hinted = await condition(() => this.hints.has(step), ms, { summary });
    this.hints.delete(step);
    return hinted;
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
      log.warn('ignored an invalid operator decision', { error: String(err) });
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
   * Blocks until an operator decides, or a callback for this attempt names the task.
   * Visible as `waiting-operator` in the parent's status and current details.
   */
  async awaitDecision(
    step: string,
    attempt: number,
    reason: string,
  ): Promise<CreateDecision | { callback: VendorCallbackSignal }> {
    this.waiting = { workflowId: workflowInfo().workflowId, stage: this.stage, step, attempt, reason, since: new Date().toISOString() };
    this.report();
    await condition(() => this.decisions.has(step) || Boolean(this.callbackFor(step, attempt)?.taskId));
    const decision = this.decisions.get(step);
    this.decisions.delete(step);
    this.waiting = undefined;
    this.report();
    if (decision) return decision;
    return { callback: this.callbackFor(step, attempt)! };
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
    if (!parent) return;
    getExternalWorkflowHandle(parent.workflowId)
      .signal(stageReportSignal, this.snapshot())
      .catch((err) => log.warn('could not report to parent', { error: String(err) }));
  }
}

export function validateDecision(decision: unknown): asserts decision is CreateDecision {
  if (!decision || typeof decision !== 'object') throw new Error('decision: required ({taskId} | {resubmit:true} | {abandon:true})');
  const d = decision as Record<string, unknown>;
  const keys = Object.keys(d);
  if (keys.length !== 1) throw new Error('decision: exactly one of taskId, resubmit, abandon');
  if ('taskId' in d && (typeof d.taskId !== 'string' || !/^[\w.:-]{1,128}$/.test(d.taskId))) {
    throw new Error('decision.taskId: a vendor task id (letters, digits, . _ : -)');
  }
  if ('resubmit' in d && d.resubmit !== true) throw new Error('decision.resubmit: must be true');
  if ('abandon' in d && d.abandon !== true) throw new Error('decision.abandon: must be true');
  if (!['taskId', 'resubmit', 'abandon'].includes(keys[0])) throw new Error(`decision.${keys[0]}: unknown field`);
}
