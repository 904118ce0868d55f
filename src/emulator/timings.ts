/**
 * How long each simulated process takes. "fast" suits a demo (seconds); "realistic"
 * follows the spec where it gives numbers (assets 5–30 s) and plausible values where it
 * does not. A duration may be a range: each resource then gets a stable value from it,
 * derived from its id, so one slow asset stays slow on every read.
 */
import { REVIEW_MIN_QUERY_INTERVAL_MS } from '../vendor-api/assumed-values';
import { hash32 } from './prng';

export type Duration = number | readonly [min: number, max: number];

export interface Timings {
  generationQueuedMs: Duration;
  generationRunningMs: Duration;
  eraseSubmittedMs: Duration;
  eraseQueuedMs: Duration;
  eraseInProgressMs: Duration;
  assetProcessingMs: Duration;
  reviewPendingMs: Duration;
  reviewProcessingMs: Duration;
  /** Minimum interval between queries of one review task (value not shown, assumed: docs/vendor-contract.md). */
  reviewMinQueryIntervalMs: number;
  /** How often the scheduler moves due resources forward and sends their callbacks. */
  tickMs: number;
  /** One callback POST gives up after this long. */
  callbackTimeoutMs: number;
  /**
   * Further attempts at a callback that failed (no answer, 408, 429 or 5xx). The spec shows
   * no retry policy, so the profiles make none; a test of the receiver under load turns it on.
   */
  callbackRetries: number;
  /** Pause before the first retry; each further one doubles it, up to 30 s. */
  callbackRetryBaseMs: number;
}

export type Profile = 'fast' | 'realistic';

export const PROFILES: Record<Profile, Timings> = {
  fast: {
    generationQueuedMs: 1_000,
    generationRunningMs: 3_000,
    eraseSubmittedMs: 300,
    eraseQueuedMs: 700,
    eraseInProgressMs: 2_000,
    assetProcessingMs: 2_000,
    reviewPendingMs: 500,
    reviewProcessingMs: 1_500,
    reviewMinQueryIntervalMs: REVIEW_MIN_QUERY_INTERVAL_MS,
    tickMs: 50,
    callbackTimeoutMs: 5_000,
    callbackRetries: 0,
    callbackRetryBaseMs: 1_000,
  },
  realistic: {
    generationQueuedMs: [2_000, 10_000],
    generationRunningMs: [30_000, 120_000],
    eraseSubmittedMs: [500, 2_000],
    eraseQueuedMs: [2_000, 10_000],
    eraseInProgressMs: [10_000, 60_000],
    assetProcessingMs: [5_000, 30_000],
    reviewPendingMs: [500, 2_000],
    reviewProcessingMs: [2_000, 10_000],
    reviewMinQueryIntervalMs: REVIEW_MIN_QUERY_INTERVAL_MS,
    tickMs: 250,
    callbackTimeoutMs: 10_000,
    callbackRetries: 0,
    callbackRetryBaseMs: 1_000,
  },
};

/** A profile name, or explicit timings laid over "fast" (tests use sub-second values). */
export function resolveTimings(profile: Profile | Partial<Timings> | undefined): Timings {
  if (profile === undefined) return PROFILES.fast;
  if (typeof profile === 'string') {
    const found = PROFILES[profile];
    if (!found) throw new Error(`unknown emulator profile "${String(profile)}" (fast | realistic)`);
    return found;
  }
  return { ...PROFILES.fast, ...profile };
}

/** The duration for one resource: fixed, or a stable pick within the range. */
export function durationFor(duration: Duration, resourceId: string): number {
  if (typeof duration === 'number') return duration;
  const [min, max] = duration;
  return min + (hash32(resourceId) % (Math.max(0, max - min) + 1));
}
