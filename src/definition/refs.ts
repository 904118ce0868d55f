/**
 * The zod-free part of the definition language: reference syntax and durations. The
 * workflows import these without loading zod and every schema into each workflow context.
 */

/** Refer to earlier stage outputs inside generation content URLs. */
export const REVIEW_REF = /^ref:review\/(\d+)$/; // Asset:// address of review item N (input order)
export const ASSET_REF = /^ref:asset\/([^/]+)$/; // Asset://<id> of the created asset with that name

/** Parses a duration option ('30s', '5m', 1500) into milliseconds. */
export function durationMs(value: number | string): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+)(ms|s|m|h)$/.exec(value);
  if (!m) throw new Error(`bad duration ${value}`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}
