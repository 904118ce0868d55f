/**
 * PipelineFailedError: what pipelineResult() and runPipeline() reject with when a pipeline
 * did not complete. The fields a caller acts on are typed (the failure type, the stage, the
 * vendor's code, the vendor tasks that may still run), so nobody walks the SDK's failure
 * chain; the SDK's WorkflowFailedError stays as `cause` (and its messages as `messages`).
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { FAILURE_TYPES, FailureType } from '../../failures';
import type { PipelineFailureDetails } from '../../contract/failure-details';
import { STAGES, type StageName, type VendorTaskRecord } from '../../contract/messages';

export type PipelineEndStatus = 'failed' | 'cancelled' | 'terminated' | 'timed-out';

export class PipelineFailedError extends Error {
  override readonly name = 'PipelineFailedError';
  /** How it ended: failed, or cancelled, terminated or timed out (then `type` is undefined). */
  readonly status: PipelineEndStatus;
  /**
   * Why it failed: the stage's failure type (GenerationFailed, UpstreamFailedError,
   * ArchiveUrlGone, …), or the pipeline's own before any stage (InvalidDefinition, …).
   */
  readonly type?: FailureType;
  /** The stage that failed; undefined when it failed before any stage, or was not failed. */
  readonly stage?: StageName | 'archive';
  /** The vendor's own error code, when the vendor gave one. */
  readonly vendorCode?: string;
  /**
   * Every vendor task the pipeline created, with its last known state: those not in an end
   * state may still run (and cost) at the vendor. Empty for runs from before this field.
   */
  readonly vendorTasks: VendorTaskRecord[];
  /** The failure's message chain, outermost first (what the CLI prints). */
  readonly messages: string[];
  /** The pipeline's outermost reelflow failure (the SDK's WorkflowFailedError is `cause`). */
  override readonly cause: WorkflowFailedError;

  constructor(
    readonly workflowId: string,
    err: WorkflowFailedError,
    messages: string[],
  ) {
    const top = err.cause;
    super(top?.message || err.message);
    this.cause = err;
    this.messages = messages;
    this.status = endStatus(err);
    const fields = this.status === 'failed' ? failureFields(top) : { vendorTasks: [] };
    this.vendorTasks = fields.vendorTasks;
    if (fields.type !== undefined) this.type = fields.type;
    if (fields.stage !== undefined) this.stage = fields.stage;
    if (fields.vendorCode !== undefined) this.vendorCode = fields.vendorCode;
  }
}

function endStatus(err: WorkflowFailedError): PipelineEndStatus {
  const cause = err.cause;
  if (cause instanceof CancelledFailure) return 'cancelled';
  if (cause instanceof TerminatedFailure) return 'terminated';
  if (cause instanceof TimeoutFailure) return 'timed-out';
  return 'failed';
}

const isFailureType = (t: unknown): t is FailureType => (FAILURE_TYPES as readonly unknown[]).includes(t);
const STAGE_NAMES: readonly string[] = [...STAGES, 'archive'];
/** The message pipelineFailure writes: how runs from before the details name their stage. */
const STAGE_IN_MESSAGE = /^pipeline \S+ failed in stage (\w+):/;

/** The chain below `top`, each ApplicationFailure once (an activity's failure is its cause's). */
function applicationFailures(top: unknown): ApplicationFailure[] {
  const out: ApplicationFailure[] = [];
  for (let e: unknown = top, n = 0; e instanceof Error && n < 20; e = e.cause, n++) {
    if (e instanceof ApplicationFailure) out.push(e);
  }
  return out;
}

function failureFields(top: Error | undefined): Omit<PipelineFailureDetails, 'stage'> & {
  type?: FailureType;
  stage?: StageName | 'archive';
} {
  const chain = applicationFailures(top);
  const [outer] = chain;
  if (outer?.type !== FailureType.PipelineFailed) {
    // Failed before any stage (InvalidDefinition, PlaintextPayloadRefused, …).
    return { vendorTasks: [], ...(isFailureType(outer?.type) ? { type: outer.type } : {}) };
  }
  const details = outer.details?.[0] as Partial<PipelineFailureDetails> | undefined;
  const type = chain.slice(1).find((f) => isFailureType(f.type))?.type as FailureType | undefined;
  const stage = details?.stage ?? STAGE_IN_MESSAGE.exec(outer.message)?.[1];
  const vendorCode =
    details?.vendorCode ??
    chain.map((f) => (f.details?.[0] as { vendorCode?: unknown } | undefined)?.vendorCode).find((c) => c !== undefined);
  return {
    vendorTasks: Array.isArray(details?.vendorTasks) ? details.vendorTasks : [],
    ...(type ? { type } : {}),
    ...(stage && STAGE_NAMES.includes(stage) ? { stage: stage as StageName | 'archive' } : {}),
    ...(typeof vendorCode === 'string' ? { vendorCode } : {}),
  };
}
