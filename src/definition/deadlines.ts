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

/**
 * How long after CreateAsset the first GetAsset waits (assets.firstReadAfter): an asset
 * starts Pending and, by the vendor's documentation, usually ends within 5 to 30 s
 * (docs/vendor-contract.md), so an earlier read only costs a call of the rate-limited budget.
 */
export const ASSET_FIRST_READ_AFTER = '5s';
/** Past 5 minutes Pending an asset is stuck (contact support): waiting longer than that first is never right. */
const MAX_FIRST_READ_MS = 5 * 60_000;

/** Why a first-read wait cannot work, or undefined: a duration from 0 to 5m. */
export function firstReadProblem(value: number | string): string | undefined {
  const format = typeof value === 'string' ? !/^\d+(ms|s|m|h)$/.test(value) : !Number.isInteger(value) || value < 0;
  if (format) return FORMAT.replace('"30s"', '"0s", "30s"');
  if (durationMs(value) > MAX_FIRST_READ_MS) return 'must be at most 5m: an asset Pending that long is stuck';
  return undefined;
}

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
