/**
 * The archive activity's failures: one ApplicationFailure type per cause (src/failures.ts
 * names them), retryable only where a retry can help. Messages name the file and never
 * show a URL's query string (a signed URL's query is a credential).
 */
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../failures';
import { addressRefusalIn } from './public-address';
import { UnsafePathError } from './archive-files';

/**
 * Attempts a full disk gets: parallel downloads that filled it free their partial files
 * when they fail, so a minute later there may be room; beyond that it needs an operator,
 * and re-downloading gigabytes 8 times would only hide the cause.
 */
export const DISK_FULL_ATTEMPTS = 3;
const DISK_FULL_RETRY_DELAY = '1 minute';

/** A URL for messages and results: scheme, host and path only (no credentials, no query). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '<unparseable URL>';
  }
}

function scrub(message: string, url: string): string {
  let out = message.split(url).join(redactUrl(url));
  try {
    const { search } = new URL(url);
    if (search.length > 1) out = out.split(search.slice(1)).join('…');
  } catch {
    // nothing more to remove
  }
  return out;
}

export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.ArchiveInvalidInput,
    message: `archive: ${message}`,
    nonRetryable: true,
  });
}

export function statusFailure(name: string, url: string, status: number): ApplicationFailure {
  const where = `archive "${name}": HTTP ${status} from ${redactUrl(url)}`;
  if (status === 403 || status === 404 || status === 410) {
    return ApplicationFailure.create({
      type: FailureType.ArchiveUrlGone,
      message: `${where}: URL expired or gone`,
      nonRetryable: true,
      details: [{ name, status }],
    });
  }
  const retryable = status >= 500 || status === 408 || status === 429;
  return ApplicationFailure.create({
    type: FailureType.ArchiveHttpError,
    message: where,
    nonRetryable: !retryable,
    details: [{ name, status }],
  });
}

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(2)} GiB`;
}

export function tooLarge(name: string, bytes: number, limit: number, what: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.ArchiveTooLarge,
    message: `archive "${name}": ${what} ${bytes} bytes (${gib(bytes)}) is over the archive limit of ${limit} bytes (${gib(limit)}, REELFLOW_ARCHIVE_MAX_BYTES)`,
    nonRetryable: true,
    details: [{ name, bytes, limit }],
  });
}

export function sizeMismatch(name: string, bytes: number, what: string, want: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.ArchiveSizeMismatch,
    message: `archive "${name}": got ${bytes} bytes, ${what} says ${want}`,
    details: [{ name, bytes, [what]: want }],
  });
}

/** Errors of the archive's own file operations (tagged where they happen, see `onDisk`). */
const localErrors = new WeakSet<object>();

/** Marks a rejection as a local file-system error, whatever its shape (a FileHandle's has no path). */
export function onDisk<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    if (typeof e === 'object' && e !== null) localErrors.add(e);
    throw e;
  });
}

/** Errors of the object store's requests (tagged where they happen, see `inStore`). */
const storeErrors = new WeakSet<object>();

/** Marks a rejection as the object store's (credentials, bucket, throttling, 5xx). */
export function inStore<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    if (typeof e === 'object' && e !== null) storeErrors.add(e);
    throw e;
  });
}

/** The store's own words: its error code, HTTP status and message (never a credential: the SDK sends none back). */
function storeFailure(c: FailureContext, e: Error): ApplicationFailure {
  const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const where = c.store ?? 'the object store';
  return ApplicationFailure.create({
    type: FailureType.ArchiveStoreError,
    message: `archive "${c.name}": ${where} failed: ${e.name}${status ? ` (HTTP ${status})` : ''}: ${e.message}`,
    details: [{ name: c.name, code: e.name, status }],
  });
}

/** The error, as an Error marked as the object store's. */
export function asStoreError(err: unknown): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  storeErrors.add(e);
  return e;
}

export interface FailureContext {
  name: string;
  url: string;
  /** The folder being written (named in local failures). */
  dir: string;
  /** `s3://bucket/key` when archiving to an object store (named in its failures). */
  store?: string;
  attempt: number;
  signal: AbortSignal;
}

function diskFull(c: FailureContext, code: string): ApplicationFailure {
  const last = c.attempt >= DISK_FULL_ATTEMPTS;
  const next = last
    ? `gave up after ${c.attempt} attempts: free space there`
    : `attempt ${c.attempt} of ${DISK_FULL_ATTEMPTS}, next in ${DISK_FULL_RETRY_DELAY}`;
  return ApplicationFailure.create({
    type: FailureType.ArchiveDiskFull,
    message: `archive "${c.name}": disk full writing in ${c.dir} (${code}); ${next}`,
    nonRetryable: last,
    ...(last ? {} : { nextRetryDelay: DISK_FULL_RETRY_DELAY }),
    details: [{ name: c.name, dir: c.dir, code }],
  });
}

/** Any error of the activity as the ApplicationFailure the workflow sees (or the cancellation). */
export function toFailure(err: unknown, c: FailureContext): unknown {
  if (c.signal.aborted) return c.signal.reason ?? err; // cancellation: let the SDK report it as such
  if (err instanceof ApplicationFailure) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  const refusal = addressRefusalIn(e);
  if (refusal) {
    return ApplicationFailure.create({
      type: FailureType.ArchiveAddressRefused,
      message: `archive "${c.name}": ${refusal.message} (set REELFLOW_ARCHIVE_ALLOW_PRIVATE=1 only for local testing)`,
      nonRetryable: true,
      details: [{ name: c.name, host: refusal.host, reason: refusal.reason }],
    });
  }
  if (e instanceof UnsafePathError) {
    return ApplicationFailure.create({
      type: FailureType.ArchiveUnsafePath,
      message: `archive "${c.name}": ${e.message}`,
      nonRetryable: true,
      details: [{ name: c.name, folder: e.folder }],
    });
  }
  if (storeErrors.has(e)) return storeFailure(c, e);
  const detail = scrub(`${e.message}${typeof code === 'string' ? ` (${code})` : ''}`, c.url);
  if (localErrors.has(e)) {
    if (code === 'ENOSPC' || code === 'EDQUOT') return diskFull(c, code);
    return ApplicationFailure.create({
      type: FailureType.ArchiveWriteError,
      message: `archive "${c.name}": writing in ${c.dir} failed: ${detail}`,
      details: [{ name: c.name, dir: c.dir, code }],
    });
  }
  return ApplicationFailure.create({
    type: FailureType.ArchiveNetworkError,
    message: `archive "${c.name}": download from ${redactUrl(c.url)} failed: ${detail}`,
    details: [{ name: c.name, code }],
  });
}
