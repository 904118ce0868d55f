/**
 * Metrics emitted by activities, through the activity's own meter (the SDK adds
 * namespace, taskQueue and activityType). Outside an activity (a unit test calling the
 * function directly) nothing is emitted.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, type MetricMeter } from '@temporalio/common';
import { FailureType } from '../failures';
import { VendorConfigError, VendorError } from '../vendor-api/errors';
import { METRICS, type ArchiveBackend, type VendorCallOutcome } from './names';

const OUTCOMES: Partial<Record<string, VendorCallOutcome>> = {
  [FailureType.RateLimitedError]: 'rate_limited',
  [FailureType.AmbiguousError]: 'ambiguous',
  [FailureType.ResponseShapeError]: 'ambiguous',
  [FailureType.NotSentError]: 'not_sent',
  [FailureType.RejectedError]: 'rejected',
  [FailureType.NotFoundError]: 'not_found',
  [FailureType.UnauthorizedError]: 'unauthorized',
  [FailureType.ForbiddenError]: 'forbidden',
  [FailureType.UpstreamFailedError]: 'upstream_failed',
  [FailureType.MissingCredentialError]: 'missing_credential',
};

/**
 * What a vendor call's error says about it, as the `outcome` label (`error` for anything not
 * the vendor's); undefined when no call was made (the worker does not serve the profile).
 */
export function vendorCallOutcome(err: unknown): VendorCallOutcome | undefined {
  if (err instanceof VendorConfigError) return undefined;
  return (err instanceof VendorError && OUTCOMES[err.name]) || 'error';
}

function meter(): MetricMeter | undefined {
  try {
    return Context.current().metricMeter;
  } catch {
    return undefined; // not in an activity
  }
}

/** One vendor HTTP call: `endpoint` as the client names it ("generation.create", "assets.GetAsset"). */
function countVendorCall(endpoint: string, outcome: VendorCallOutcome): void {
  const m = METRICS.vendorCalls;
  const iface = endpoint.split('.')[0];
  meter()?.createCounter(m.name, undefined, m.help).add(1, { interface: iface, endpoint, outcome });
}

/** Runs one vendor call and counts it by its outcome. */
export async function countedCall<T>(endpoint: string, call: () => Promise<T>): Promise<T> {
  try {
    const out = await call();
    countVendorCall(endpoint, 'ok');
    return out;
  } catch (err) {
    const outcome = vendorCallOutcome(err);
    if (outcome) countVendorCall(endpoint, outcome);
    throw err;
  }
}

export function countArchivedBytes(bytes: number, backend: ArchiveBackend): void {
  const m = METRICS.archiveBytes;
  meter()?.createCounter(m.name, 'By', m.help).add(bytes, { backend });
}

export function observeArchiveDuration(seconds: number, backend: ArchiveBackend): void {
  const m = METRICS.archiveDuration;
  meter()?.createHistogram(m.name, 'float', 's', m.help).record(seconds, { backend });
}

/** One failed archive attempt, by its failure type (`cancelled` for a cancellation). */
export function countArchiveFailure(backend: ArchiveBackend, err: unknown): void {
  const m = METRICS.archiveFailures;
  const type = err instanceof ApplicationFailure ? (err.type ?? 'unknown') : 'cancelled';
  meter()?.createCounter(m.name, undefined, m.help).add(1, { backend, type });
}
