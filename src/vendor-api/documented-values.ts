/**
 * What the vendor's documentation states (docs/vendor-contract.md, "What we rely on"):
 * limits, URL validities, the erase price. Only stated values belong here; what reelflow
 * assumes where the documentation is silent goes to assumed-values.ts (plain values) or
 * assumed-shapes.ts (response schemas). Plain values, no imports (no zod), so workflow code
 * imports them too; the client, the activities, the workflows, the emulator and the bench
 * import these values, never a copy (test/vendor-api/vendor-facts.test.ts).
 */

/** GetAsset calls per second per access token; above it the vendor answers 429. */
export const GETASSET_MAX_PER_SECOND = 10;
/** Poll GetAsset at intervals of at least this. */
export const GETASSET_MIN_INTERVAL_MS = 500;

/** URLs per review submission, at most. */
export const MAX_REVIEW_BATCH = 50;

/** Asset group names: at most 50 characters of Chinese characters, letters, digits, - and _. */
export const GROUP_NAME_MAX = 50;
export const GROUP_NAME_CHARS = /^[\p{Script=Han}A-Za-z0-9_-]+$/u;
/** Asset groups per user per deployment, default groups included. */
export const GROUP_QUOTA = 100;
/** ListAssets page size when none is given. */
export const DEFAULT_PAGE_SIZE = 20;

/** The original URL of a generated video is valid this long from generation. */
export const ORIGINAL_URL_VALIDITY_MS = 24 * 3_600_000;
/** A signed asset URL from GetAsset is valid about this long. */
export const SIGNED_ASSET_URL_VALIDITY_MS = 12 * 3_600_000;

/** Price of one erase task. */
export const ERASE_UNIT_PRICE = 0.000015;
export const ERASE_CURRENCY = '¥';
