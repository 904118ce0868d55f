/**
 * Deadline options: defaults and bounds. A zero or negative deadline can never be met (one
 * left a pipeline RUNNING forever, every workflow task failing with
 * BadScheduleActivityAttributes), and below a second nothing the vendor does completes.
 */
import { durationMs } from './refs';

export const DEADLINE_DEFAULTS = {
  assetStuck: '5m',
  assetPending: '15m',
  vendorTask: '2h',
  callbackGrace: '60s',
  createAttempt: '90s',
  notFoundGrace: '60s',
} as const;

/** How long a webhook delivery keeps retrying before it is given up (options.notify.deliveryTimeout). */
export const WEBHOOK_DELIVERY_TIMEOUT = '24h';

export const MIN_DEADLINE_MS = 1_000;
/** A year: far beyond any pipeline, and well within what timers and timeouts can hold. */
export const MAX_DEADLINE_MS = 8_760 * 3_600_000;

const NOT_POSITIVE = 'must be positive: a zero or negative deadline can never be met';
const FORMAT = 'must be a duration such as "30s", "5m", "2h" (units ms, s, m, h), or a whole number of milliseconds';

/** Why a deadline value cannot work, or undefined. */
export function deadlineProblem(value: number | string): string | undefined {
  if (typeof value === 'string' && /^-\d+(ms|s|m|h)$/.test(value)) return NOT_POSITIVE;
  if (typeof value === 'string' && !/^\d+(ms|s|m|h)$/.test(value)) return FORMAT;
  if (typeof value === 'number' && !Number.isInteger(value)) return FORMAT;
  const ms = durationMs(value);
  if (ms <= 0) return NOT_POSITIVE;
  if (ms < MIN_DEADLINE_MS) return `must be at least 1s (got ${ms} ms): nothing at the vendor completes sooner`;
  if (ms > MAX_DEADLINE_MS) return 'must be at most 8760h (a year)';
  return undefined;
}
