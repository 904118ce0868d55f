/**
 * Named vendor errors. The class says what the caller may do next; activities turn
 * them into Temporal ApplicationFailures with `type` = class name (see toFailureInfo).
 *
 * Pure module (no node:*). The class names are failure types: src/failures.ts lists them.
 *
 * No message, field or cause here ever carries a credential: messages are built from
 * endpoint names, field paths and vendor text that http.ts scrubs of known secrets.
 */
import { FailureType } from '../failures';

export interface VendorErrorOptions {
  /** Logical endpoint, e.g. 'generation.create', 'assets.CreateAsset'. */
  endpoint: string;
  status?: number;
  /** The trace/track id we sent (or the vendor's TrackId when we sent none). */
  traceId?: string;
  vendorCode?: string;
  /** Offending request field, e.g. `content[1].image_url.url`. */
  field?: string;
  retryAfterMs?: number;
  /** Epoch ms until which Retry-After says to wait (the answer's arrival + retryAfterMs). */
  retryAfterAt?: number;
  /** Whether repeating the very same call is safe (see each class). */
  retryable?: boolean;
  cause?: unknown;
}

/** Base of every error the vendor client throws. */
export class VendorError extends Error {
  /**
   * Set by a class whose meaning alone decides whether the same call may be repeated (a
   * request never sent may be; a rejected one never): it wins over `opts.retryable`.
   * Subclasses inherit it.
   */
  static readonly retryableByClass?: boolean;
  override readonly name: string = FailureType.VendorError;
  readonly endpoint: string;
  readonly status?: number;
  readonly traceId?: string;
  readonly vendorCode?: string;
  readonly field?: string;
  readonly retryAfterMs?: number;
  readonly retryAfterAt?: number;
  /** Hint: true when the same call may be repeated as is (after a backoff). */
  readonly retryable: boolean;

  constructor(message: string, opts: VendorErrorOptions) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.endpoint = opts.endpoint;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.traceId !== undefined) this.traceId = opts.traceId;
    if (opts.vendorCode !== undefined) this.vendorCode = opts.vendorCode;
    if (opts.field !== undefined) this.field = opts.field;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
    if (opts.retryAfterAt !== undefined) this.retryAfterAt = opts.retryAfterAt;
    this.retryable = new.target.retryableByClass ?? opts.retryable ?? false;
  }
}

/**
 * The request provably never left this process: connection refused, DNS failure,
 * connect timeout, TLS failure, or aborted before a socket took it. Safe to retry,
 * even for creates.
 */
export class NotSentError extends VendorError {
  static override readonly retryableByClass = true;
  override readonly name: string = FailureType.NotSentError;
}

/**
 * The request may have reached the vendor and the outcome is unknown: timeout after
 * send, socket reset after send, 500 or an undocumented 5xx, an unreadable 2xx body.
 * For a create this means RECONCILE, never a blind resubmit; `retryable` is true only
 * for reads and other idempotent calls.
 */
export class AmbiguousError extends VendorError {
  override readonly name: string = FailureType.AmbiguousError;
}

/**
 * A 2xx response whose body is not JSON or does not match the documented schema.
 * Subclass of AmbiguousError: for a create the task may exist even though we could
 * not read its id.
 */
export class ResponseShapeError extends AmbiguousError {
  override readonly name: string = FailureType.ResponseShapeError;
}

/**
 * 429. Wait `retryAfterMs` (from Retry-After; undefined when absent), i.e. until the
 * epoch ms `retryAfterAt`, then retry.
 */
export class RateLimitedError extends VendorError {
  static override readonly retryableByClass = true;
  override readonly name: string = FailureType.RateLimitedError;
}

/**
 * The request is invalid (4xx validation, or our own check before sending). `field`
 * names the offending field when known. Never retry the same request.
 */
export class RejectedError extends VendorError {
  static override readonly retryableByClass = false;
  override readonly name: string = FailureType.RejectedError;
  /** The vendor's Message (scrubbed), when the vendor rejected it. */
  readonly vendorMessage?: string;
  constructor(message: string, opts: VendorErrorOptions & { vendorMessage?: string }) {
    super(message, opts);
    if (opts.vendorMessage !== undefined) this.vendorMessage = opts.vendorMessage;
  }
}

/**
 * 404 on any endpoint: the vendor does not know this task, path or id. Right after a
 * create it may be read-after-write lag rather than a verdict: the caller decides.
 * Never retryable as is.
 */
export class NotFoundError extends RejectedError {
  override readonly name: string = FailureType.NotFoundError;
}

/** 401: API key or access token invalid or absent. Not retryable without new credentials. */
export class UnauthorizedError extends VendorError {
  static override readonly retryableByClass = false;
  override readonly name: string = FailureType.UnauthorizedError;
}

/** 403: the group (GroupNotOwned) or asset (AssetNotOwned) belongs to another user. */
export class ForbiddenError extends VendorError {
  static override readonly retryableByClass = false;
  override readonly name: string = FailureType.ForbiddenError;
}

/**
 * 502. Two documented meanings, told apart by `endpoint`/`vendorCode`:
 * - asset management (`assets.*`, code ...CallFailed): upstream call failed, retry
 *   later → retryable;
 * - erase (`erase.create`): video processing failed; resubmit only with ANOTHER video
 *   URL → not retryable as is.
 */
export class UpstreamFailedError extends VendorError {
  override readonly name: string = FailureType.UpstreamFailedError;
}

/**
 * A credential the interface needs was not configured. Thrown before sending; names
 * the missing option or environment variable, never a value.
 */
export class MissingCredentialError extends VendorError {
  static override readonly retryableByClass = false;
  override readonly name: string = FailureType.MissingCredentialError;
}

/** Bad or missing configuration (environment). Names the variable, never its value. */
export class VendorConfigError extends Error {
  override readonly name: string = FailureType.VendorConfigError;
  readonly variable: string;
  constructor(message: string, variable: string) {
    super(message);
    this.variable = variable;
  }
}

/** Plain, serializable description of a failure: the activity → ApplicationFailure bridge. */
export interface FailureInfo {
  /** Class name: 'AmbiguousError', 'RateLimitedError', ... ('Error' for foreign errors). */
  type: string;
  message: string;
  endpoint?: string;
  status?: number;
  vendorCode?: string;
  field?: string;
  retryAfterMs?: number;
  /** Epoch ms until which Retry-After says to wait, from the clock when the 429 arrived. */
  retryAfterAt?: number;
  traceId?: string;
  retryable: boolean;
}

/** The failure type for `err`: its class name for ours, else its name or 'Error'. */
export function errorKind(err: unknown): string {
  if (err instanceof VendorError || err instanceof VendorConfigError) return err.name;
  if (err instanceof Error) return err.name || 'Error';
  return 'Error';
}

export function toFailureInfo(err: unknown): FailureInfo {
  if (err instanceof VendorError) {
    const info: FailureInfo = {
      type: err.name,
      message: err.message,
      endpoint: err.endpoint,
      retryable: err.retryable,
    };
    if (err.status !== undefined) info.status = err.status;
    if (err.vendorCode !== undefined) info.vendorCode = err.vendorCode;
    if (err.field !== undefined) info.field = err.field;
    if (err.retryAfterMs !== undefined) info.retryAfterMs = err.retryAfterMs;
    if (err.retryAfterAt !== undefined) info.retryAfterAt = err.retryAfterAt;
    if (err.traceId !== undefined) info.traceId = err.traceId;
    return info;
  }
  if (err instanceof VendorConfigError) {
    return { type: err.name, message: err.message, field: err.variable, retryable: false };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { type: errorKind(err), message, retryable: false };
}
