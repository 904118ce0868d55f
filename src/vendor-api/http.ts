/**
 * The one HTTP function of the vendor client: undici `request`, per-call timeouts, an
 * AbortSignal passthrough, fresh trace ids, and classification of every failure into
 * the error classes of errors.ts.
 *
 * "Sent or not" is decided by fact, not by error code: a tiny interceptor marks the
 * moment undici hands the request to a connected socket (onRequestStart). A failure
 * before that mark (DNS, refused, connect timeout, TLS, abort while queued) is
 * NotSentError; any failure after it may have reached the vendor.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Dispatcher, request } from 'undici';
import { VendorErrorBodySchema } from './assumed-shapes';
import { redactCallbackTokens } from './callback-redaction';
import {
  AmbiguousError,
  ForbiddenError,
  NotFoundError,
  NotSentError,
  RateLimitedError,
  RejectedError,
  ResponseShapeError,
  UnauthorizedError,
  UpstreamFailedError,
  VendorError,
  type VendorErrorOptions,
} from './errors';
import { parseRetryAfter } from './retry-after';
import { inVendorSpan } from './spans';

export interface Timeouts {
  /** TCP + TLS connect. Applied by the Agent (see client.ts), not per dispatch. */
  connectMs: number;
  /** From sending the request to the end of the response headers. */
  headersMs: number;
  /** Max idle time between body chunks. */
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 30_000,
});

/** Bodies above this are refused (a vendor JSON reply is a few kB). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Vendor text copied into our messages is capped: errors end up in workflow history. */
const MAX_VENDOR_TEXT = 300;

/** 32 lowercase hex characters, fresh per request (X-Trace-ID, X-Track-Id: docs/vendor-contract.md). */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

export interface HttpCall {
  /** Logical endpoint for errors, e.g. 'erase.create'. */
  endpoint: string;
  method: 'GET' | 'POST';
  url: string;
  /** Path template for the trace span when the path carries an id, e.g. '/v1/task/get/{id}'. */
  route?: string;
  /** Credentials and the like; never copied into errors. */
  headers?: Record<string, string>;
  /** undefined → no body; a string → sent verbatim; anything else → JSON. */
  body?: unknown;
  /** Header that carries a fresh trace id, when the spec recommends one. */
  traceHeader?: 'X-Trace-ID' | 'X-Track-Id';
  /** Whether repeating the call after an ambiguous failure is harmless (reads). */
  idempotent: boolean;
  /** Known request fields, to name the offending one in a vendor 400. */
  knownFields?: readonly string[];
  dispatcher: Dispatcher;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  signal?: AbortSignal;
  /** Secret values to scrub from any vendor text (a vendor may echo a header). */
  secrets?: readonly string[];
  /** Clock for Retry-After HTTP-dates. */
  now?: () => number;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined for an empty body. */
  json: unknown;
  /** The trace id we sent, if any. */
  traceId?: string;
}

/** Performs one call, in a trace span (./spans.ts). Resolves only for 2xx with a JSON (or empty) body; throws a VendorError otherwise. */
export function httpRequest(call: HttpCall): Promise<HttpResponse> {
  return inVendorSpan(call, () => send(call));
}

async function send(call: HttpCall): Promise<HttpResponse> {
  const traceId = call.traceHeader ? newTraceId() : undefined;
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  if (call.traceHeader && traceId) headers[call.traceHeader] = traceId;
  let body: string | undefined;
  if (call.body !== undefined) {
    body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
  }
  if (call.method === 'POST') headers['content-type'] = 'application/json';

  const base: VendorErrorOptions = { endpoint: call.endpoint };
  if (traceId) base.traceId = traceId;
  const state = { sent: false };

  if (call.signal?.aborted) {
    throw new NotSentError(`${call.endpoint}: aborted before the request was sent`, {
      ...base,
      cause: call.signal.reason,
    });
  }

  let res: Dispatcher.ResponseData;
  try {
    res = await request(call.url, {
      method: call.method,
      headers,
      body,
      dispatcher: markSent(call.dispatcher, state),
      headersTimeout: call.headersTimeoutMs ?? DEFAULT_TIMEOUTS.headersMs,
      bodyTimeout: call.bodyTimeoutMs ?? DEFAULT_TIMEOUTS.bodyMs,
      signal: call.signal,
    });
  } catch (err) {
    throw transportError(call, base, state.sent, err);
  }

  const status = res.statusCode;
  let text: string;
  try {
    text = await readBody(res.body);
  } catch (err) {
    // A non-2xx status already says what happened; only a 2xx needs its body.
    if (status < 200 || status >= 300) throw errorForStatus(call, base, status, res.headers, undefined);
    throw transportError(call, { ...base, status }, true, err);
  }

  let json: unknown;
  let parsed = true;
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      parsed = false;
    }
  }

  if (status >= 200 && status < 300) {
    if (!parsed) {
      throw new ResponseShapeError(`${call.endpoint}: ${status} response body is not JSON`, {
        ...base,
        status,
        retryable: call.idempotent,
      });
    }
    const out: HttpResponse = { status, headers: res.headers, json };
    if (traceId) out.traceId = traceId;
    return out;
  }
  throw errorForStatus(call, base, status, res.headers, parsed ? json : undefined);
}

/** Wraps the dispatcher so `state.sent` turns true when undici writes to a socket. */
function markSent(dispatcher: Dispatcher, state: { sent: boolean }): Dispatcher {
  return dispatcher.compose(
    (dispatch) => (opts, handler) =>
      dispatch(opts, {
        onRequestStart(controller, context) {
          state.sent = true;
          handler.onRequestStart?.(controller, context);
        },
        onRequestUpgrade: (c, s, h, socket) => handler.onRequestUpgrade?.(c, s, h, socket),
        onResponseStart: (c, s, h, m) => handler.onResponseStart?.(c, s, h, m),
        onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
        onResponseEnd: (c, trailers) => handler.onResponseEnd?.(c, trailers),
        onResponseError: (c, e) => handler.onResponseError?.(c, e),
      }),
  );
}

async function readBody(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new Error(`response body larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Describes a transport failure by its code only: undici messages are fine, but keep it terse. */
function transportError(call: HttpCall, base: VendorErrorOptions, sent: boolean, err: unknown): VendorError {
  if (err instanceof VendorError) return err;
  const code = errorCode(err) ?? (err instanceof Error ? err.name : 'unknown');
  const aborted = call.signal?.aborted === true;
  const what = aborted ? 'aborted by caller' : describeTransport(code);
  if (!sent) {
    return new NotSentError(`${call.endpoint}: request not sent (${what})`, { ...base, cause: err });
  }
  return new AmbiguousError(`${call.endpoint}: ${what} after the request was sent; the vendor may have received it`, {
    ...base,
    cause: err,
    retryable: call.idempotent,
  });
}

function describeTransport(code: string): string {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timeout';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'timed out waiting for response headers';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out reading the response body';
    case 'UND_ERR_SOCKET':
      return 'socket closed';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'DNS lookup failed';
    default:
      return code;
  }
}

interface VendorErrorText {
  code?: string;
  message?: string;
  field?: string;
  trackId?: string;
}

/**
 * Reads whatever code/message the vendor put in an error body (shapes: assumed-shapes.ts).
 * Every piece is scrubbed: a vendor may echo a credential anywhere, the TrackId included.
 */
function readErrorBody(json: unknown, secrets: readonly string[]): VendorErrorText {
  const parsed = VendorErrorBodySchema.safeParse(json);
  if (!parsed.success) return {};
  const b = parsed.data;
  const errObj = typeof b.error === 'object' ? b.error : undefined;
  const meta = b.ResponseMetadata;
  const code = b.Code ?? meta?.Error?.Code ?? b.code ?? errObj?.code;
  const message =
    b.Message ??
    meta?.Error?.Message ??
    b.message ??
    errObj?.message ??
    (typeof b.error === 'string' ? b.error : undefined);
  const trackId = b.TrackId ?? meta?.RequestId;
  const out: VendorErrorText = {};
  if (code !== undefined) out.code = scrub(String(code), secrets);
  if (message !== undefined) out.message = scrub(message, secrets);
  if (b.field !== undefined) out.field = scrub(b.field, secrets);
  if (trackId !== undefined) out.trackId = scrub(trackId, secrets);
  return out;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces every secret value, in any letter case, and the token of any callback URL the
 * vendor echoes (the create's callback_url) by [redacted], and caps the length.
 */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = redactCallbackTokens(text);
  for (const s of secrets) {
    if (s.length >= 4) out = out.replace(new RegExp(escapeRegExp(s), 'gi'), '[redacted]');
  }
  return out.length > MAX_VENDOR_TEXT ? `${out.slice(0, MAX_VENDOR_TEXT)}…` : out;
}

/**
 * The field a vendor message talks about: a path such as `content[1].image_url.url`,
 * else the first known field name that appears as a word.
 */
export function fieldFromVendorText(message: string | undefined, known: readonly string[] = []): string | undefined {
  if (!message || known.length === 0) return undefined;
  const tops = new Set(known.map((k) => k.split(/[.[]/)[0]));
  for (const m of message.matchAll(/[A-Za-z_][\w]*(?:\[\d+\]|\.[A-Za-z_]\w*)+/g)) {
    if (tops.has(m[0].split(/[.[]/)[0] ?? '')) return m[0];
  }
  // Longest first, so 'GroupIds' wins over 'GroupId' when both are known.
  for (const k of [...known].sort((a, b) => b.length - a.length)) {
    const re = new RegExp(`(^|[^\\w.])${k.replace(/[.[\]]/g, '\\$&')}($|[^\\w])`);
    if (re.test(message)) return k;
  }
  return undefined;
}

function errorForStatus(
  call: HttpCall,
  base: VendorErrorOptions,
  status: number,
  headers: IncomingHttpHeaders,
  json: unknown,
): VendorError {
  const secrets = call.secrets ?? [];
  const v = readErrorBody(json, secrets);
  const opts: VendorErrorOptions = { ...base, status };
  if (!opts.traceId && v.trackId) opts.traceId = v.trackId;
  if (v.code !== undefined) opts.vendorCode = v.code;
  const receivedAt = (call.now ?? Date.now)();
  const retryAfterMs = parseRetryAfter(headers['retry-after'], receivedAt);
  if (retryAfterMs !== undefined) {
    opts.retryAfterMs = retryAfterMs;
    opts.retryAfterAt = receivedAt + retryAfterMs;
  }
  const said = [v.code, v.message].filter(Boolean).join(': ');
  const detail = said ? ` (${said})` : '';
  const ep = call.endpoint;

  if (status === 429) {
    const wait = retryAfterMs === undefined ? 'no Retry-After' : `retry after ${retryAfterMs} ms`;
    return new RateLimitedError(`${ep}: rate limited, ${wait}${detail}`, opts);
  }
  if (status === 401) return new UnauthorizedError(`${ep}: unauthorized, credential invalid or absent${detail}`, opts);
  if (status === 403) return new ForbiddenError(`${ep}: forbidden${detail}`, opts);
  if (status === 404) {
    const nopts = v.message === undefined ? opts : { ...opts, vendorMessage: v.message };
    return new NotFoundError(`${ep}: not found (404)${detail}`, nopts);
  }
  // docs/vendor-contract.md, "How each interface behaves": the real code carries a vendor word in
  // place of "Upstream" (…CallFailed).
  if (ep.startsWith('assets.') && (status === 502 || (status >= 500 && /CallFailed$/i.test(v.code ?? '')))) {
    return new UpstreamFailedError(`${ep}: vendor upstream call failed, retry later${detail}`, {
      ...opts,
      retryable: true,
    });
  }
  if (status === 502 && ep === 'erase.create') {
    return new UpstreamFailedError(`${ep}: video processing failed; resubmit only with another video_url${detail}`, {
      ...opts,
      field: 'video_url',
      retryable: false,
    });
  }
  if (status >= 400 && status < 500) {
    const field = v.field ?? fieldFromVendorText(v.message, call.knownFields);
    const ropts: VendorErrorOptions & { vendorMessage?: string } = { ...opts };
    if (field !== undefined) ropts.field = field;
    if (v.message !== undefined) ropts.vendorMessage = v.message;
    const about = field ? ` field ${field}` : '';
    return new RejectedError(`${ep}: rejected (${status})${about}${detail}`, ropts);
  }
  // 500 and any undocumented status: the vendor may have acted on it.
  return new AmbiguousError(`${ep}: HTTP ${status}; the vendor may have acted on the request${detail}`, {
    ...opts,
    retryable: call.idempotent,
  });
}
