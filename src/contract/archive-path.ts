/**
 * How an archived file is addressed over HTTP: the worker's archive server
 * (src/workers/archive-server.ts) and the library's fetchArchivedFile agree here.
 *
 * The archive writes `<REELFLOW_ARCHIVE_DIR>/<pipeline>/<task>/<name>`, each of the three a
 * single segment (src/activities/archive-files.ts safeSegment: letters, digits, `.`, `_`,
 * `-`, `~`; `_url-<sha256>` for a task folder keyed by its URL). The server serves
 * `GET /archive/<pipeline>/<task>/<name>`: exactly those three segments, nothing above.
 * Pure (no node built-ins): the contract is imported on every side.
 */
import type { ArchivedFile } from './messages';

/** The URL path under which the worker serves its archive. */
export const ARCHIVE_HTTP_PREFIX = '/archive';

/** The layout's depth under the archive root: pipeline, task, file. */
export const ARCHIVE_DEPTH = 3;

const SEGMENT = /^[A-Za-z0-9_~][A-Za-z0-9._~-]{0,199}$/;

/** A segment the archive can have written: never empty, `.`, `..`, hidden, a separator or a `.part` in progress. */
export function isArchiveSegment(s: string): boolean {
  return SEGMENT.test(s) && !s.includes('..') && !s.endsWith('.part');
}

/**
 * The three segments of an archived file, read from the end of its `path` (the worker's
 * absolute path, POSIX or Windows): undefined when they are not what the archive writes.
 */
export function archiveSegmentsOf(file: Pick<ArchivedFile, 'path'>): string[] | undefined {
  const parts = file.path.split(/[\\/]/);
  if (parts.length < ARCHIVE_DEPTH + 1) return undefined;
  const tail = parts.slice(-ARCHIVE_DEPTH);
  return tail.every(isArchiveSegment) ? tail : undefined;
}

/** `/archive/<pipeline>/<task>/<name>`, each segment percent-encoded. */
export function archiveHttpPath(segments: readonly string[]): string {
  return `${ARCHIVE_HTTP_PREFIX}/${segments.map(encodeURIComponent).join('/')}`;
}

/**
 * The archive server's base URL (REELFLOW_ARCHIVE_URL, `archiveUrl`) without its trailing
 * slashes: http(s), no credentials, query or fragment (a path prefix is kept, for a proxy
 * in front). Undefined when it is not one.
 */
export function archiveBaseUrl(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (!/^https?:\/\//i.test(trimmed) || !URL.canParse(trimmed)) return undefined;
  const u = new URL(trimmed);
  if (u.username || u.password || u.search || u.hash || trimmed.includes('?') || trimmed.includes('#')) {
    return undefined;
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}
