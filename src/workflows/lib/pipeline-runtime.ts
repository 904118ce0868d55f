/**
 * The one runtime of a pipeline workflow, shared by every stage module. What the pipeline
 * shows (status, details, search attributes, vendor tasks) is its StatusBoard
 * (status-board.ts); callbacks, hints and task ids offered for proof are its CallbackBook
 * (`rt.book`, callback-book.ts). Here: Retry-After holds, create attempts whose outcome is
 * unknown, the operator's decisions (`resolveCreate` Update), continue-as-new and the
 * handlers. Created inside the workflow function: no module-level state.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  isCancellation,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  callbackVerdictQuery,
  resolveCreateUpdate,
  statusQuery,
  vendorCallbackSignal,
  type CreateDecision,
  type PendingDecision,
  type ResolveCreateInput,
  type ResolveCreateResult,
  type StageName,
  type VendorTaskRecord,
} from '../../contract/messages';
import { isPlaintext } from '../../codec/plaintext-mark';
import type { RuntimeCarry } from '../../contract/carry';
import type { TenantPolicy } from '../../contract/tenancy';
import { SpendBook } from './spend-book';
import { CallbackBook } from './callback-book';
import { TASK_ID_PATTERN } from '../../contract/offers';
import { operatorRefusal } from './operator-proof';
import { failureMessage } from './failures';
import { FailureType } from '../../failures';
import { printable } from '../../contract/printable';
import { StatusBoard } from './status-board';
import type { Behaviour } from './behaviour';

/** Default read-after-write grace (definition: options.deadlines.notFoundGrace). */
export const DEFAULT_NOT_FOUND_GRACE_MS = 60_000;

export class PipelineRuntime {
  /** What the pipeline shows: status, details, search attributes (status-board.ts). */
  readonly board: StatusBoard;
  private readonly holds: Record<string, number>;
  private readonly ambiguous: Record<string, number>;
  /** Create activities in flight: continue-as-new waits for them (a lost answer would mean a second create). */
  private createsInFlight = 0;
  private readonly decisions = new Map<string, CreateDecision>();
  /** The callbacks of this pipeline: attempts, hints, offers and their proof (callback-book.ts). */
  readonly book: CallbackBook;

  /** Continue as new past this many history events (or when the server suggests it). */
  historyLimit = Number.POSITIVE_INFINITY;

  /**
   * The worker's codec refuses plaintext (REELFLOW_CODEC_STRICT=1): known from the recorded
   * result of validateDefinition, so replay judges alike; runs recorded before never have it.
   * A continued run starts from its carry's value (its input: the same in replay); a first
   * run, until that result, judges leniently, when it has no attempt a signal could reach.
   */
  codecStrict = false;

  /**
   * The tenant policy (docs/tenants.md): from the recorded result of validateDefinition, or
   * the carry of a continued run (which keeps its first run's). Undefined when tenants are off.
   */
  tenantPolicy: TenantPolicy | undefined;

  /** The pipeline's spend reservations (spend.ts); carried across continue-as-new. */
  readonly spend: SpendBook;

  /** The last local activity asked in turn (proxies.ts): the next one starts when it has settled. */
  private localTail: Promise<unknown> = Promise.resolve();

  /** Read-after-write grace after a create attempt (options.deadlines.notFoundGrace). */
  notFoundGraceMs = DEFAULT_NOT_FOUND_GRACE_MS;

  /**
   * @param continueAsNew the workflow's own continue-as-new with this runtime's carry; never returns
   * @param behaviour what the first workflow task decided (behaviour.ts): read here, never asked again
   */
  constructor(
    carry: RuntimeCarry,
    private readonly continueAsNew: (carry: RuntimeCarry) => Promise<never>,
    readonly behaviour: Behaviour,
  ) {
    this.board = new StatusBoard(carry.status, carry.waitingBase ?? '');
    this.holds = { ...carry.holds };
    this.ambiguous = { ...carry.ambiguous };
    this.codecStrict = carry.codecStrict === true;
    this.tenantPolicy = carry.tenantPolicy;
    this.spend = new SpendBook(carry.spend);
    this.spend.listen();
    // The book gets the board: it counts its checks there and lists its offers in an operator's wait.
    this.book = new CallbackBook(carry.book, this.board);
    setHandler(statusQuery, () => this.board.status);
    setHandler(vendorCallbackSignal, (cb) => this.callbackSignal(cb));
    setHandler(callbackVerdictQuery, (cb) => this.book.askedVerdict(cb));
    setHandler(resolveCreateUpdate, (input) => this.resolve(input), {
      validator: (input: ResolveCreateInput) => this.validate(input),
    });
  }

  /** Runs a local activity call when the ones asked before it have settled (proxies.ts, LocalTurns). */
  inTurn<T>(call: () => Promise<T>): Promise<T> {
    const mine = this.localTail.then(call);
    this.localTail = mine.catch(() => undefined);
    return mine;
  }

  carry(): RuntimeCarry {
    return {
      status: this.board.status,
      holds: this.holds,
      book: this.book.carry(),
      ambiguous: this.ambiguous,
      waitingBase: this.board.waitingBase,
      ...(this.codecStrict ? { codecStrict: true } : {}),
      ...(this.tenantPolicy ? { tenantPolicy: this.tenantPolicy } : {}),
      ...(Object.keys(this.spend.carry.ledgers).length > 0 ? { spend: this.spend.carry } : {}),
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

  /** Create activities not yet answered (a slot is given back only when none is). */
  get createsPending(): number {
    return this.createsInFlight;
  }

  /** The attempt of `step` whose outcome is unknown, if any: a next run resumes reconciling it, never creates. */
  ambiguousAttempt(step: string): number | undefined {
    return this.ambiguous[step];
  }

  setAmbiguous(step: string, attempt: number | undefined): void {
    if (attempt === undefined) delete this.ambiguous[step];
    else this.ambiguous[step] = attempt;
  }

  // ---- Retry-After holds, and the vendor tasks as they become known

  /** The earliest time the next call to `iface` may go out (a 429's Retry-After holds them all). */
  notBefore(iface: string): number {
    return this.holds[iface] ?? 0;
  }

  holdInterface(iface: string, until: number): void {
    if (until > (this.holds[iface] ?? 0)) this.holds[iface] = until;
  }

  /** A hold timer ran to `at`: a hold no later is over, and no later call waits for it (holds.ts). */
  holdServed(iface: string, at: number): void {
    if ((this.holds[iface] ?? 0) <= at) delete this.holds[iface];
  }

  /** A step's task id, recorded the moment it is known: shown, matched to its callbacks, no longer ambiguous. */
  record(task: Omit<VendorTaskRecord, 'orphan' | 'recordedAt'>): void {
    const existing = this.board.vendorTasks.find((t) => t.kind === task.kind && t.id === task.id);
    if (existing) {
      if (task.state) existing.state = task.state;
    } else {
      this.board.vendorTasks.push({ ...task, recordedAt: new Date().toISOString() });
    }
    this.book.known(task.step, task.attempt, task.id);
    this.setAmbiguous(task.step, undefined);
    this.board.refresh();
  }

  // ---- operator decisions (policy `ask`): one Update, answered when the stage has taken it

  /** Called once when an operator wait begins (not when a continued run resumes it): the webhook. */
  onWait?: (waiting: PendingDecision) => Promise<void>;

  /**
   * This run was started by continue-as-new during an operator wait for this attempt: the
   * wait resumes as it was, without reconciling again (a task found then would leave the
   * wait shown and an accepted decision unanswered).
   */
  resumesWait(step: string, attempt: number): boolean {
    const w = this.board.status.waiting;
    return w?.step === step && w.attempt === attempt;
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
    const waiting = this.board.status.waiting;
    if (!waiting) throw new Error(`${workflowInfo().workflowId} is not waiting for an operator decision`);
    if (input.step && input.step !== waiting.step) {
      throw new Error(`step "${input.step}" is not waiting; "${waiting.step}" is`);
    }
    validateDecision(input.decision);
  }

  private async resolve(input: ResolveCreateInput): Promise<ResolveCreateResult> {
    const waiting = this.board.status.waiting!;
    if ('taskId' in input.decision) await this.proveOperatorId(waiting, input.decision.taskId);
    this.decisions.set(waiting.step, input.decision);
    await condition(() => this.board.status.waiting?.step !== waiting.step);
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
    const w = this.board.status.waiting;
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
    const carried = this.board.status.waiting?.step === step && this.board.status.waiting.attempt === attempt;
    if (!carried || !this.board.waitingBase) this.board.waitingBase = reason;
    this.board.status.waiting = {
      workflowId: workflowInfo().workflowId,
      stage: this.board.status.stage as StageName,
      step,
      attempt,
      reason: this.board.waitingReason(this.book.describe(step, attempt)),
      since: (carried && this.board.status.waiting?.since) || new Date().toISOString(),
    };
    this.board.refresh();
    if (!carried) await this.onWait?.(this.board.status.waiting);
    const settled = () => this.decisions.has(step) || this.book.provenTask(step, attempt) !== undefined;
    // Signals and Updates grow the history while it waits: continue as new (the wait resumes) when long.
    while (!settled()) {
      await condition(() => settled() || this.historyLong());
      if (!settled()) await this.checkpoint();
    }
    const decision = this.decisions.get(step);
    this.decisions.delete(step);
    this.board.status.waiting = undefined;
    this.board.refresh();
    return decision ?? { proven: this.book.provenTask(step, attempt)! };
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
