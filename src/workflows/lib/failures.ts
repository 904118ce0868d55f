/**
 * Reads a failed activity the way the create protocol needs (docs/architecture.md,
 * "Create without duplicates"): was the
 * request provably not sent, rate limited, rejected, or is its outcome ambiguous?
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  TimeoutFailure,
  isCancellation,
} from '@temporalio/workflow';
import { FATAL_TYPES } from './proxies';
import { FailureType } from '../../failures';
import type { PipelineFailureDetails } from '../../contract/failure-details';

/** A failure that ends the stage (nonRetryable), with its details for the result. */
export function stageFailure(message: string, type: FailureType, details?: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    message,
    type,
    nonRetryable: true,
    details: details === undefined ? [] : [details],
  });
}

export type CreateOutcome =
  | { kind: 'notSent'; message: string }
  | { kind: 'rateLimited'; message: string; retryAfterMs?: number }
  | { kind: 'retryLater'; message: string } // asset-management 502: upstream failed, retry later
  | { kind: 'fatal'; message: string; type: FailureType; field?: string; vendorCode?: string }
  | { kind: 'ambiguous'; message: string };

interface Info {
  retryAfterMs?: number;
  /** Epoch ms until which the vendor's Retry-After says to wait (set by the activity). */
  retryAfterAt?: number;
  vendorCode?: string;
  field?: string;
  endpoint?: string;
}

function infoOf(f: ApplicationFailure): Info {
  const d = f.details?.[0];
  return d && typeof d === 'object' ? d : {};
}

/** Classifies a failed create. Rethrows cancellation: it is never a vendor outcome. */
export function classifyCreateFailure(err: unknown): CreateOutcome {
  if (isCancellation(err)) throw err;
  if (!(err instanceof ActivityFailure)) throw err;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) {
    // Start-to-close timeout: the worker may have died after sending. Unknown outcome.
    return { kind: 'ambiguous', message: `activity ${err.activityType} timed out (${cause.timeoutType})` };
  }
  if (cause instanceof CancelledFailure) throw err;
  if (!(cause instanceof ApplicationFailure)) return { kind: 'ambiguous', message: cause?.message ?? err.message };
  const info = infoOf(cause);
  const type = cause.type ?? 'Error';
  if (type === FailureType.NotSentError) return { kind: 'notSent', message: cause.message };
  if (type === FailureType.RateLimitedError)
    return { kind: 'rateLimited', message: cause.message, retryAfterMs: info.retryAfterMs };
  if (type === FailureType.UpstreamFailedError && info.endpoint?.startsWith('assets.')) {
    return { kind: 'retryLater', message: cause.message };
  }
  // VendorCheckFailed: refused by the worker before any vendor call (its start-up check of this
  // interface failed), so nothing was created. No patch: no recorded history holds this type.
  if (
    FATAL_TYPES.includes(type) ||
    type === FailureType.UpstreamFailedError ||
    type === FailureType.VendorCheckFailed
  ) {
    // Erase 502 lands here: "video processing failed; resubmit only with another URL".
    return {
      kind: 'fatal',
      message: cause.message,
      type: type as FailureType,
      field: info.field,
      vendorCode: info.vendorCode,
    };
  }
  // AmbiguousError, ResponseShapeError, and anything unforeseen (e.g. a worker bug):
  // the vendor may hold a task we did not hear about. Reconcile, never resubmit blindly.
  return { kind: 'ambiguous', message: cause.message };
}

/** True when a query failure can never succeed by asking again (stop the stage). */
export function isFatalQueryFailure(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  return cause instanceof ApplicationFailure && (cause.nonRetryable || FATAL_TYPES.includes(cause.type ?? ''));
}

export function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

/** The activity's ApplicationFailure and its details, when `err` is a failed activity. */
function appFailure(err: unknown): { type?: string; info: Info } {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return { info: {} };
  return { type: err.cause.type ?? undefined, info: infoOf(err.cause) };
}

/** 404 on a task query, or AssetNotOwned on an asset we just created: maybe read-after-write lag. */
export function isNotFound(err: unknown): boolean {
  const { type, info } = appFailure(err);
  return (
    type === FailureType.NotFoundError || (type === FailureType.ForbiddenError && info.vendorCode === 'AssetNotOwned')
  );
}

/** When a rate-limited call may be made again (epoch ms), or 0 when the failure was no 429. */
export function retryAfterAt(err: unknown): number {
  const { type, info } = appFailure(err);
  if (type !== FailureType.RateLimitedError) return 0;
  return info.retryAfterAt ?? (info.retryAfterMs !== undefined ? Date.now() + info.retryAfterMs : 0);
}

/** The innermost message of a failure chain: "generation task X ended failed: …". */
export function messageOf(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** The first vendor code down a failure chain (a stage failure's or a vendor error's details). */
export function vendorCodeOf(err: unknown): string | undefined {
  for (let e: unknown = err, n = 0; e instanceof Error && n < 10; e = e.cause, n++) {
    const code = e instanceof ApplicationFailure ? (e.details?.[0] as Info | undefined)?.vendorCode : undefined;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * The pipeline's own failure, keeping the chain: pipeline → stage failure → activity →
 * vendor error, so a client sees the stage's type and details (e.g. ReviewNotPassed items,
 * the offending field, the vendor's code). Its `details` carry the stage, the vendor's code and
 * the vendor tasks for the library's PipelineFailedError.
 */
export function pipelineFailure(
  pipelineId: string,
  stage: string,
  err: unknown,
  details: PipelineFailureDetails,
): ApplicationFailure {
  return ApplicationFailure.create({
    message: `pipeline ${pipelineId} failed in stage ${stage}: ${messageOf(err)}`,
    type: FailureType.PipelineFailed,
    nonRetryable: true,
    cause: err instanceof Error ? err : undefined,
    details: [details],
  });
}
