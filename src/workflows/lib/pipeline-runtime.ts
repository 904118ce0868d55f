/**
 * The one runtime of a pipeline workflow, shared by every stage module: the status the
 * `status` query, the current details and the search attributes show; vendor task ids
 * recorded the moment they are known; vendor call counts and Retry-After holds; the
 * callback inbox (hints, and task ids offered for proof: callback-book.ts); the operator's
 * decisions for ambiguous creates (`resolveCreate` Update). Created inside the workflow
 * function: no module-level state.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  callbackVerdictQuery,
  resolveCreateUpdate,
  statusQuery,
  vendorCallbackSignal,
  type CreateDecision,
  type PendingDecision,
  type PipelineStatus,
  type ResolveCreateInput,
  type ResolveCreateResult,
  type StageName,
  type StageStatus,
  type VendorTaskKind,
  type VendorTaskRecord,
} from '../../contract/messages';
import { isPlaintext } from '../../codec/plaintext-mark';
import { STAGE, STATUS, VENDOR_TASK_IDS } from '../../contract/search-attributes';
import type { ProofSpec, RuntimeCarry } from '../../contract/carry';
import { CallbackBook } from './callback-book';
import { renderDetails } from '../../contract/details';
import { TASK_ID_PATTERN } from '../../contract/offers';
import { operatorRefusal } from './operator-proof';
import { failureMessage } from './failures';
import { FailureType } from '../../failures';
import { printable } from '../../contract/printable';
import { summaryOf } from './summaries';

/** Default read-after-write grace (definition: options.deadlines.notFoundGrace). */
export const DEFAULT_NOT_FOUND_GRACE_MS = 60_000;

export class PipelineRuntime {
  readonly status: PipelineStatus;
  private readonly holds: Record<string, number>;
  private readonly ambiguous: Record<string, number>;
  /** Create activities in flight: continue-as-new waits for them (a lost answer would mean a second create). */
  private createsInFlight = 0;
  private readonly decisions = new Map<string, CreateDecision>();
  private readonly book: CallbackBook;
  /** The waiting reason without the offers, which are appended as they change. */
  private waitingBase = '';
  private lastSearch = '';

  /** Continue as new past this many history events (or when the server suggests it). */
  historyLimit = Number.POSITIVE_INFINITY;

  /**
   * An operator's task id is proven before it is accepted (patch `resolve-proof`, decided in
   * the pipeline's first workflow task); runs recorded before accepted it unchecked.
   */
  provesOperatorIds = false;

  /**
   * The pipeline's failure carries its stage, the vendor's code and its vendor tasks (patch
   * `pipeline-failure-details`, decided in the first workflow task); runs recorded before did not.
   */
  detailedFailures = false;

  /**
   * The worker's codec refuses plaintext (REELFLOW_CODEC_STRICT=1): known from the recorded
   * result of validateDefinition, so replay judges alike; runs recorded before never have it.
   * A continued run starts from its carry's value (its input: the same in replay); a first
   * run, until that result, judges leniently, when it has no attempt a signal could reach.
   */
  codecStrict = false;

  /** Read-after-write grace after a create attempt (options.deadlines.notFoundGrace). */
  notFoundGraceMs = DEFAULT_NOT_FOUND_GRACE_MS;

  /**
   * @param continueAsNew the workflow's own continue-as-new with this runtime's carry; never returns
   * @param boundCallbacks CALLBACK_BOUND_PATCH, decided in the first workflow task (callback-book.ts)
   */
  constructor(
    carry: RuntimeCarry,
    private readonly continueAsNew: (carry: RuntimeCarry) => Promise<never>,
    boundCallbacks = false,
  ) {
    this.status = carry.status;
    this.holds = { ...carry.holds };
    this.ambiguous = { ...carry.ambiguous };
    this.waitingBase = carry.waitingBase ?? '';
    this.codecStrict = carry.codecStrict === true;
    this.book = new CallbackBook(
      carry.book,
      {
        count: (endpoint) => this.count(endpoint),
        stepOwning: (id) => this.vendorTasks.find((t) => t.id === id && !t.orphan)?.step,
        stateOf: (id) => this.vendorTasks.find((t) => t.id === id)?.state,
        orphan: (kind, id, step, attempt) => {
          this.vendorTasks.push({ kind, id, step, attempt, via: 'callback', orphan: true });
          this.refresh();
        },
        offersChanged: (step, attempt) => this.offersChanged(step, attempt),
        summary: (text) => this.summary(text),
      },
      boundCallbacks,
    );
    setHandler(statusQuery, () => this.status);
    setHandler(vendorCallbackSignal, (cb) => this.callbackSignal(cb));
    setHandler(callbackVerdictQuery, (cb) => this.book.askedVerdict(cb));
    setHandler(resolveCreateUpdate, (input) => this.resolve(input), {
      validator: (input: ResolveCreateInput) => this.validate(input),
    });
  }

  get vendorTasks(): VendorTaskRecord[] {
    return this.status.vendorTasks;
  }

  carry(): RuntimeCarry {
    return {
      status: this.status,
      holds: this.holds,
      book: this.book.carry(),
      ambiguous: this.ambiguous,
      waitingBase: this.waitingBase,
      ...(this.codecStrict ? { codecStrict: true } : {}),
    };
  }

  /**
   * Called where a stage may safely stop (between polls, in long waits): past the history
   * limit the pipeline continues as new with its state. Handlers in flight (an Update
   * waiting for its decision to be taken) finish first, so nothing is lost at the switch.
   */
  async checkpoint(): Promise<void> {
    if (!this.historyLong()) return;
    // An Update whose decision is not taken yet must be answered in this run.
    await condition(() => (allHandlersFinished() && this.createsInFlight === 0) || this.decisions.size > 0);
    if (this.decisions.size > 0) return;
    await this.continueAsNew(this.carry());
  }

  /** Past the history limit, or the server suggests continuing as new. */
  historyLong(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength > this.historyLimit;
  }

  // ---- create attempts whose outcome is unknown, carried across continue-as-new

  /** Runs one create activity, counted so that continue-as-new never abandons its answer. */
  async creating<T>(create: () => Promise<T>): Promise<T> {
    this.createsInFlight++;
    try {
      return await create();
    } finally {
      this.createsInFlight--;
    }
  }

  /** The attempt of `step` whose outcome is unknown, if any: a next run resumes reconciling it, never creates. */
  ambiguousAttempt(step: string): number | undefined {
    return this.ambiguous[step];
  }

  setAmbiguous(step: string, attempt: number | undefined): void {
    if (attempt === undefined) delete this.ambiguous[step];
    else this.ambiguous[step] = attempt;
  }

  // ---- the running stage, as the status and the Web UI show it

  private get current(): StageStatus {
    return this.status.stages[this.status.stage as StageName] ?? { state: 'running' };
  }

  get detail(): string | undefined {
    return this.current.detail;
  }
  set detail(text: string | undefined) {
    this.current.detail = text;
  }

  get progress(): { done: number; total: number } | undefined {
    return this.current.progress;
  }
  set progress(p: { done: number; total: number } | undefined) {
    this.current.progress = p;
  }

  /** Called once when an operator wait begins (not when a continued run resumes it): the webhook. */
  onWait?: (waiting: PendingDecision) => Promise<void>;

  /** An asset Pending past the stuck threshold: the pipeline shows `stuck` until the stage ends. */
  stuck = false;

  /** Current details every time; search attributes only when stage, state or the task ids change. */
  refresh(): void {
    const s = this.status;
    if (s.state === 'running' || s.state === 'waiting-operator' || s.state === 'stuck') {
      s.state = s.waiting ? 'waiting-operator' : this.stuck ? 'stuck' : 'running';
    }
    setCurrentDetails(renderDetails(s));
    const ids = s.vendorTasks.map((t) => t.id);
    const key = `${s.stage}|${s.state}|${ids.join(',')}`;
    if (key === this.lastSearch) return;
    this.lastSearch = key;
    upsertSearchAttributes([
      { key: STAGE, value: s.stage },
      { key: STATUS, value: s.state },
      { key: VENDOR_TASK_IDS, value: ids },
    ]);
  }

  /** The Web UI summary of a command of the running stage: "generation · poll cgt-…" (ids only, no URL). */
  summary(text: string): string {
    return summaryOf(this.status.stage, text);
  }

  /** Kept for the shared helpers (create, poll): a pipeline reports by refreshing itself. */
  report(): void {
    this.refresh();
  }

  // ---- bookkeeping

  count(endpoint: string): void {
    this.status.calls[endpoint] = (this.status.calls[endpoint] ?? 0) + 1;
  }

  /** The earliest time the next call to `iface` may go out (a 429's Retry-After holds them all). */
  notBefore(iface: string): number {
    return this.holds[iface] ?? 0;
  }

  holdInterface(iface: string, until: number): void {
    if (until > (this.holds[iface] ?? 0)) this.holds[iface] = until;
  }

  /** The task this step already has (a run before continue-as-new recorded it): no second create. */
  knownTask(step: string): VendorTaskRecord | undefined {
    return this.vendorTasks.find((t) => t.step === step && !t.orphan);
  }

  /** When this step's task id became known (workflow time, ms): its deadlines count from there. */
  recordedAt(step: string): number | undefined {
    const at = this.knownTask(step)?.recordedAt;
    return at === undefined ? undefined : Date.parse(at);
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

  record(task: Omit<VendorTaskRecord, 'orphan' | 'recordedAt'>): void {
    const existing = this.vendorTasks.find((t) => t.kind === task.kind && t.id === task.id);
    if (existing) {
      if (task.state) existing.state = task.state;
    } else {
      this.vendorTasks.push({ ...task, recordedAt: new Date().toISOString() });
    }
    this.book.known(task.step, task.attempt, task.id);
    this.setAmbiguous(task.step, undefined);
    this.refresh();
  }

  setState(kind: VendorTaskKind, id: string, state: string): void {
    const t = this.vendorTasks.find((x) => x.kind === kind && x.id === id);
    if (t && t.state !== state) t.state = state;
  }

  // ---- callbacks: hints, and offers that need proof

  /** The task id a callback offered for this attempt and that passed the proof, if any. */
  provenTask(step: string, attempt: number): string | undefined {
    return this.book.provenTask(step, attempt);
  }

  /** What a create attempt's callback URL is made for (the activity builds the URL). */
  callbackRef(step: string, attempt: number): { step: string; attempt: number; run?: string } {
    return this.book.callbackRef(step, attempt);
  }

  /** Whether any callback offered a task id for this attempt (checked or not). */
  hasOffers(step: string, attempt: number): boolean {
    return this.book.hasOffers(step, attempt);
  }

  /** Workflow time of this step's last vendor query made outside the poll loop (an offer's check). */
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
    const waiting = this.status.waiting;
    if (waiting?.step !== step || waiting.attempt !== attempt) return;
    waiting.reason = this.waitingReason(step, attempt);
    this.refresh();
  }

  private waitingReason(step: string, attempt: number): string {
    const offers = this.book.describe(step, attempt);
    return offers ? `${this.waitingBase} Task ids offered by callbacks: ${offers}` : this.waitingBase;
  }

  // ---- operator decisions (policy `ask`): one Update, answered when the stage has taken it

  /**
   * This run was started by continue-as-new during an operator wait for this attempt: the
   * wait resumes as it was, without reconciling again (a task found then would leave the
   * wait shown and an accepted decision unanswered). Runs resumed before this change reconcile.
   */
  resumesWait(step: string, attempt: number): boolean {
    const w = this.status.waiting;
    return w?.step === step && w.attempt === attempt && patched('resume-operator-wait');
  }

  /** A callback signal; a plaintext one (from a client without the codec) is dropped when strict. */
  private callbackSignal(cb: unknown): void {
    if (this.codecStrict && isPlaintext(cb)) {
      log.warn(
        'vendorCallback signal dropped: it arrived in plaintext and this worker refuses plaintext (REELFLOW_CODEC_STRICT=1)',
      );
      return;
    }
    this.book.receive(cb);
  }

  private validate(input: ResolveCreateInput): void {
    if (this.codecStrict && isPlaintext(input))
      throw new Error(
        'resolveCreate refused: the Update arrived in plaintext and this worker refuses plaintext (REELFLOW_CODEC_STRICT=1); send it from a client with the payload codec (REELFLOW_CODEC_KEYS)',
      );
    const waiting = this.status.waiting;
    if (!waiting) throw new Error(`${workflowInfo().workflowId} is not waiting for an operator decision`);
    if (input.step && input.step !== waiting.step) {
      throw new Error(`step "${input.step}" is not waiting; "${waiting.step}" is`);
    }
    validateDecision(input.decision);
  }

  private async resolve(input: ResolveCreateInput): Promise<ResolveCreateResult> {
    const waiting = this.status.waiting!;
    if (this.provesOperatorIds && 'taskId' in input.decision)
      await this.proveOperatorId(waiting, input.decision.taskId);
    this.decisions.set(waiting.step, input.decision);
    await condition(() => this.status.waiting?.step !== waiting.step);
    log.info(`operator decision for ${printable(waiting.step)} taken`);
    return { stage: waiting.stage, step: waiting.step, accepted: input.decision };
  }

  /**
   * The operator's task id passes the offers' proof, or the Update fails with TaskIdRefused
   * saying why; the wait goes on either way (the operator can answer again).
   */
  private async proveOperatorId(waiting: PendingDecision, taskId: string): Promise<void> {
    let why: string | undefined;
    try {
      const checked = await this.book.operatorFacts(waiting.step, waiting.attempt, taskId);
      why =
        'refused' in checked
          ? checked.refused
          : operatorRefusal({ taskId, ...checked, notFoundGraceMs: this.notFoundGraceMs, nowMs: Date.now() });
    } catch (err) {
      if (isCancellation(err)) throw err;
      why = `task ${printable(taskId, 130)} could not be checked (${printable(failureMessage(err), 160)}); try again`;
    }
    const w = this.status.waiting;
    // The wait may have ended (a callback's task proven) or been answered while the id was checked.
    if (
      why === undefined &&
      (w?.step !== waiting.step || w.attempt !== waiting.attempt || this.decisions.has(w.step))
    ) {
      why = `step ${waiting.step} attempt ${waiting.attempt} was decided while task ${printable(taskId, 130)} was checked`;
    }
    if (why === undefined) return;
    log.warn(`operator's task id for ${printable(waiting.step)} refused: ${why}`);
    throw ApplicationFailure.create({ type: FailureType.TaskIdRefused, message: why, nonRetryable: true });
  }

  /**
   * Blocks until an operator decides, or a task id a callback offers for this attempt
   * passes the proof. The reason lists every offered id and what became of it.
   * Visible as `waiting-operator` in the status, the details and the search attributes.
   */
  async awaitDecision(step: string, attempt: number, reason: string): Promise<CreateDecision | { proven: string }> {
    // A wait carried across continue-as-new keeps its reason and since.
    const carried = this.status.waiting?.step === step && this.status.waiting.attempt === attempt;
    if (!carried || !this.waitingBase) this.waitingBase = reason;
    this.status.waiting = {
      workflowId: workflowInfo().workflowId,
      stage: this.status.stage as StageName,
      step,
      attempt,
      reason: this.waitingReason(step, attempt),
      since: (carried && this.status.waiting?.since) || new Date().toISOString(),
    };
    this.refresh();
    if (!carried) await this.onWait?.(this.status.waiting);
    const settled = () => this.decisions.has(step) || this.provenTask(step, attempt) !== undefined;
    // Signals and Updates grow the history while it waits: continue as new (the wait resumes) when long.
    while (!settled()) {
      await condition(() => settled() || this.historyLong());
      if (!settled()) await this.checkpoint();
    }
    const decision = this.decisions.get(step);
    this.decisions.delete(step);
    this.status.waiting = undefined;
    this.refresh();
    return decision ?? { proven: this.provenTask(step, attempt)! };
  }
}

export function validateDecision(decision: unknown): asserts decision is CreateDecision {
  if (!decision || typeof decision !== 'object')
    throw new Error('decision: required ({taskId} | {resubmit:true} | {abandon:true})');
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
