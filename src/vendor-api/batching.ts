/**
 * Review batching (docs/vendor-contract.md): at most 50 URLs per submission, one media type per batch,
 * the type inferred from the URL extension. Pure (no node:*, no URL global), so
 * workflows can plan batches deterministically.
 */
import { RejectedError } from './errors';
import { MAX_REVIEW_BATCH } from './documented-values';

export const MEDIA_TYPES = ['Image', 'Video', 'Audio'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** Supported extensions per type (the vendor's table). */
export const MEDIA_EXTENSIONS: Readonly<Record<MediaType, readonly string[]>> = Object.freeze({
  Image: ['jpeg', 'jpg', 'png', 'webp', 'bmp', 'tiff', 'tif', 'gif', 'heic', 'heif'],
  Video: ['mp4', 'mov'],
  Audio: ['wav', 'mp3'],
});

const BY_EXTENSION: ReadonlyMap<string, MediaType> = new Map(
  MEDIA_TYPES.flatMap((t) => MEDIA_EXTENSIONS[t].map((e) => [e, t] as const)),
);

export type MediaTypeResult = { ok: true; type: MediaType } | { ok: false; reason: string };

/**
 * The media type of a review URL from its path extension (case-insensitive; query
 * string and fragment ignored). Only http(s) URLs qualify.
 */
export function inferMediaType(url: string): MediaTypeResult {
  const m = /^https?:\/\/([^/?#]*)([^?#]*)/i.exec(url.trim());
  if (!m || !m[1] || m[1].includes('@')) return { ok: false, reason: 'is not a public http(s) URL' };
  const path = m[2] ?? '';
  const last = path.slice(path.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  const ext = dot >= 0 ? last.slice(dot + 1).toLowerCase() : '';
  const type = BY_EXTENSION.get(ext);
  if (!type) {
    return { ok: false, reason: ext ? `has unsupported extension .${ext}` : 'has no file extension' };
  }
  return { ok: true, type };
}

export interface ReviewBatch {
  assetType: MediaType;
  urls: string[];
  /** Position of each URL in the input, for mapping results back. */
  indexes: number[];
}

export interface PlanOptions {
  /** Require every URL to be of this type. */
  assetType?: MediaType;
  /** Batch size, 1..50 (default 50). */
  maxPerBatch?: number;
}

/**
 * Splits URLs into batches of ≤ 50 of one type, keeping input order within a type.
 * Throws RejectedError naming `urls[i]` for the first unusable URL; nothing is sent.
 */
export function planReviewBatches(urls: readonly string[], opts: PlanOptions = {}): ReviewBatch[] {
  const endpoint = 'review.plan';
  const size = opts.maxPerBatch ?? MAX_REVIEW_BATCH;
  if (!Number.isInteger(size) || size < 1 || size > MAX_REVIEW_BATCH) {
    throw new RejectedError(`${endpoint}: maxPerBatch must be an integer 1..${MAX_REVIEW_BATCH}`, {
      endpoint,
      field: 'maxPerBatch',
    });
  }
  const byType = new Map<MediaType, { urls: string[]; indexes: number[] }>();
  urls.forEach((url, i) => {
    const field = `urls[${i}]`;
    const t = inferMediaType(url);
    if (!t.ok) throw new RejectedError(`${endpoint}: ${field} ${t.reason}`, { endpoint, field });
    if (opts.assetType && t.type !== opts.assetType) {
      throw new RejectedError(`${endpoint}: ${field} is ${t.type}, expected ${opts.assetType}`, { endpoint, field });
    }
    const group = byType.get(t.type) ?? { urls: [], indexes: [] };
    group.urls.push(url);
    group.indexes.push(i);
    byType.set(t.type, group);
  });
  const batches: ReviewBatch[] = [];
  for (const [assetType, g] of byType) {
    for (let at = 0; at < g.urls.length; at += size) {
      batches.push({ assetType, urls: g.urls.slice(at, at + size), indexes: g.indexes.slice(at, at + size) });
    }
  }
  return batches;
}
