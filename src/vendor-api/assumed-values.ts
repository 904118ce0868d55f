/**
 * What reelflow assumes where the vendor's documentation is silent ("not shown":
 * docs/vendor-contract.md), as plain values: the states it understands, minimum query
 * intervals, the wait after a 429, the raw entry points' base, the sync review's wait.
 * Stated values belong in documented-values.ts; assumed response shapes (zod) in
 * assumed-shapes.ts. No zod here, so workflow code imports these without evaluating every
 * schema in each workflow context.
 *
 * State lists are what reelflow UNDERSTANDS, not what it accepts: response schemas take
 * any non-empty status string, since a vendor (or a reseller in front of it) may send
 * states the spec does not name. Workflows decide what an unknown state means.
 */
import { GETASSET_MIN_INTERVAL_MS } from './documented-values';

/**
 * States of a generation task ("not shown": docs/vendor-contract.md): ours, plus the upstream's
 * `expired` (the task expired at the vendor).
 */
export const GENERATION_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export const GENERATION_TERMINAL_STATES = ['succeeded', 'failed', 'cancelled', 'expired'] as const;
export type GenerationState = (typeof GENERATION_STATES)[number];

/** States of an erase task (documented). Resellers may also send NOT_START or UNKNOWN: unknown here. */
export const ERASE_STATES = ['SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE'] as const;
export const ERASE_TERMINAL_STATES = ['SUCCESS', 'FAILURE'] as const;
export type EraseState = (typeof ERASE_STATES)[number];

/** States of a review task (documented; transitions not shown). */
export const REVIEW_STATES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export const REVIEW_TERMINAL_STATES = ['completed', 'failed', 'cancelled'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** States of an asset (documented), plus the Volcengine OpenAPI style's `Processing`. */
export const ASSET_STATES = ['Pending', 'Processing', 'Active', 'Failed', 'Deleted'] as const;
export const ASSET_TERMINAL_STATES = ['Active', 'Failed', 'Deleted'] as const;
/** Still being processed: keep polling. */
export const ASSET_PENDING_STATES = ['Pending', 'Processing'] as const;
export type AssetState = (typeof ASSET_STATES)[number];

/** Minimum interval between review task queries (value "not shown": docs/vendor-contract.md). */
export const REVIEW_MIN_QUERY_INTERVAL_MS = 1_000;

/**
 * Never query a task more often than this, per interface: GetAsset's is the spec's (4.4),
 * the others are not shown (review: rule 3 above; generation, erase: 1 s per task).
 */
export const MIN_QUERY_INTERVAL_MS = {
  asset: GETASSET_MIN_INTERVAL_MS,
  review: REVIEW_MIN_QUERY_INTERVAL_MS,
  generation: 1_000,
  erase: 1_000,
} as const;

/** Wait after a 429 that carries no Retry-After (the spec names none). */
export const RATE_LIMIT_WAIT_MS = 1_000;
/** The 429 floor: a create is retried no sooner than this, whatever Retry-After says. */
export const RATE_LIMIT_FLOOR_MS = 500;

/**
 * Entry points named only by path (base address, credentials and shapes "not
 * shown"): assumed to live under {base_url} with the same `Bearer <API_KEY>` as
 * generation. Request and response bodies stay `unknown`.
 */
export const RAW_ENTRY_POINTS_BASE = 'base_url' as const;

/**
 * Sync review submit waits for the review itself (duration "not shown"), so
 * its default time-to-response-headers is longer than other calls'.
 */
export const REVIEW_SYNC_HEADERS_TIMEOUT_MS = 300_000;
