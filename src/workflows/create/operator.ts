/**
 * An operator's decisions after an ambiguous create (docs/architecture.md, "Create without
 * duplicates"; src/workflows/create/README.md): the `resolveCreate` Update, its task id
 * proven at the vendor before it is adopted (docs/security.md, "Operator answers"), and the
 * wait a stage blocks in until an operator decides or a callback's task is proven.
 */
import { ApplicationFailure, condition, isCancellation, log, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  resolveCreateUpdate,
  type CreateDecision,
  type PendingDecision,
  type ResolveCreateInput,
  type ResolveCreateResult,
  type StageName,
} from '../../contract/messages';
import { isPlaintext } from '../../codec/plaintext-mark';
import { TASK_ID_PATTERN } from '../../contract/offers';
import { printable } from '../../contract/printable';
import { FailureType } from '../../failures';
import { operatorRefusal } from '../lib/callbacks/operator-proof';
import { failureMessage } from '../lib/failures';
import type { CallbackBook } from '../lib/callbacks/callback-book';
import type { StatusBoard } from '../lib/status/status-board';

/** What the create protocol reads of its pipeline (PipelineRuntime gives it). */
export interface CreatePipeline {
  readonly board: StatusBoard;
  readonly book: CallbackBook;
  /** The worker's codec refuses plaintext: a plaintext Update is refused. */
  readonly codecStrict: boolean;
  /** Read-after-write grace: how young an operator's task id may be and still not be found. */
  readonly notFoundGraceMs: number;
  historyLong(): boolean;
  /** Continues as new past the history limit (the wait resumes in the next run). */
  checkpoint(): Promise<void>;
}

export class OperatorDecisions {
  private readonly decisions = new Map<string, CreateDecision>();

  /** Called once when an operator wait begins (not when a continued run resumes it): the webhook. */
  onWait?: (waiting: PendingDecision) => Promise<void>;

  constructor(private readonly pipeline: CreatePipeline) {}

  /** Registers the `resolveCreate` Update (after the runtime's other handlers, as it always was). */
  listen(): void {
    setHandler(resolveCreateUpdate, (input) => this.resolve(input), {
      validator: (input: ResolveCreateInput) => this.validate(input),
    });
  }

  /** An Update taken before the runtime existed (listenBeforeRuntime): judged as the validator would, then resolved. */
  async answer(input: ResolveCreateInput): Promise<ResolveCreateResult> {
    try {
      this.validate(input);
    } catch (err) {
      throw ApplicationFailure.create({ message: failureMessage(err), nonRetryable: true });
    }
    return this.resolve(input);
  }

  /** An accepted decision not yet taken by its stage: it must be answered in this run. */
  get undelivered(): boolean {
    return this.decisions.size > 0;
  }

  /**
   * This run was started by continue-as-new during an operator wait for this attempt: the
   * wait resumes as it was, without reconciling again (a task found then would leave the
   * wait shown and an accepted decision unanswered).
   */
  resumesWait(step: string, attempt: number): boolean {
    const w = this.pipeline.board.status.waiting;
    return w?.step === step && w.attempt === attempt;
  }

  private validate(input: ResolveCreateInput): void {
    if (this.pipeline.codecStrict && isPlaintext(input))
      throw new Error(
        'resolveCreate refused: the Update arrived in plaintext and this worker refuses plaintext (REELFLOW_CODEC_STRICT=1); send it from a client with the payload codec (REELFLOW_CODEC_KEYS)',
      );
    const waiting = this.pipeline.board.status.waiting;
    if (!waiting) throw new Error(`${workflowInfo().workflowId} is not waiting for an operator decision`);
    if (input.step && input.step !== waiting.step) {
      throw new Error(`step "${input.step}" is not waiting; "${waiting.step}" is`);
    }
    validateDecision(input.decision);
  }

  private async resolve(input: ResolveCreateInput): Promise<ResolveCreateResult> {
    const board = this.pipeline.board;
    const waiting = board.status.waiting!;
    if ('taskId' in input.decision) await this.proveOperatorId(waiting, input.decision.taskId);
    this.decisions.set(waiting.step, input.decision);
    await condition(() => board.status.waiting?.step !== waiting.step);
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
      const checked = await this.pipeline.book.operatorFacts(waiting.step, waiting.attempt, taskId);
      why =
        'refused' in checked
          ? checked.refused
          : operatorRefusal({ taskId, ...checked, notFoundGraceMs: this.pipeline.notFoundGraceMs, nowMs: Date.now() });
    } catch (err) {
      if (isCancellation(err)) throw err;
      why = `task ${printable(taskId, 130)} could not be checked (${printable(failureMessage(err), 160)}); try again`;
    }
    why ??= this.decidedMeanwhile(waiting, taskId);
    if (why === undefined) return;
    log.warn(`operator's task id for ${printable(waiting.step)} refused: ${why}`);
    throw ApplicationFailure.create({ type: FailureType.TaskIdRefused, message: why, nonRetryable: true });
  }

  /** The wait may have ended (a callback's task proven) or been answered while the id was checked. */
  private decidedMeanwhile(waiting: PendingDecision, taskId: string): string | undefined {
    const w = this.pipeline.board.status.waiting;
    if (w?.step !== waiting.step || w.attempt !== waiting.attempt || this.decisions.has(w.step)) {
      return `step ${waiting.step} attempt ${waiting.attempt} was decided while task ${printable(taskId, 130)} was checked`;
    }
    return undefined;
  }

  /**
   * Blocks until an operator decides, or a task id a callback offers for this attempt
   * passes the proof. The reason lists every offered id and what became of it.
   * Visible as `waiting-operator` in the status, the details and the search attributes.
   */
  async awaitDecision(step: string, attempt: number, reason: string): Promise<CreateDecision | { proven: string }> {
    const { board, book } = this.pipeline;
    // A wait carried across continue-as-new keeps its reason and since.
    const carried = board.status.waiting?.step === step && board.status.waiting.attempt === attempt;
    if (!carried || !board.waitingBase) board.waitingBase = reason;
    board.status.waiting = {
      workflowId: workflowInfo().workflowId,
      stage: board.status.stage as StageName,
      step,
      attempt,
      reason: board.waitingReason(book.describe(step, attempt)),
      since: (carried && board.status.waiting?.since) || new Date().toISOString(),
    };
    board.refresh();
    if (!carried) await this.onWait?.(board.status.waiting);
    const settled = () => this.decisions.has(step) || book.provenTask(step, attempt) !== undefined;
    // Signals and Updates grow the history while it waits: continue as new (the wait resumes) when long.
    while (!settled()) {
      await condition(() => settled() || this.pipeline.historyLong());
      if (!settled()) await this.pipeline.checkpoint();
    }
    const decision = this.decisions.get(step);
    this.decisions.delete(step);
    board.status.waiting = undefined;
    board.refresh();
    return decision ?? { proven: book.provenTask(step, attempt)! };
  }
}

/**
 * A continued run checks its carry (a local activity) before its runtime exists, and an
 * Update delivered in that first workflow task would find no handler and be rejected. This
 * handler takes it, judged by the carry's wait, and hands it to the runtime's desk once that
 * exists; the desk's own handler replaces this one. A rejected Update leaves no history, so
 * runs that rejected one replay alike.
 */
export function listenBeforeRuntime(
  waiting: PendingDecision | undefined,
  desk: () => OperatorDecisions | undefined,
): void {
  setHandler(
    resolveCreateUpdate,
    async (input) => {
      await condition(() => desk() !== undefined);
      return desk()!.answer(input);
    },
    {
      validator: (input: ResolveCreateInput) => {
        if (!waiting) throw new Error(`${workflowInfo().workflowId} is not waiting for an operator decision`);
        validateDecision(input.decision);
      },
    },
  );
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
