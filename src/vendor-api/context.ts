/**
 * What every interface module shares: addresses, credentials, timeouts, dispatcher, and
 * `exchange()`, the one path from a typed call to http.ts and back through a schema.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { MissingCredentialError, RejectedError } from './errors';
import { httpRequest, type Timeouts } from './http';
import { parseResponse } from './validate';

export interface CallOptions {
  /** Pass the activity's cancellation signal: aborting cancels the HTTP call. */
  signal?: AbortSignal;
  /** Per-call overrides of the client's timeouts. */
  timeouts?: Partial<Timeouts>;
  /** Sees status, headers and the trace id of every successful response. */
  onResponse?: (meta: ResponseMeta) => void;
}

export interface ResponseMeta {
  endpoint: string;
  status: number;
  headers: IncomingHttpHeaders;
  traceId?: string;
}

export interface Credentials {
  apiKey?: string;
  accessToken?: string;
}

export interface VendorContext {
  baseUrl: string;
  identityUrl: string;
  /** The vendor word in the erase paths (spec preamble: written `svc`). */
  pathWord: string;
  credentials: Readonly<Credentials>;
  timeouts: Readonly<Timeouts>;
  /** The dispatcher to use for a given connect timeout. */
  dispatcherFor(connectMs: number): Dispatcher;
  now: () => number;
}

/** Which credential authenticates a call (docs/vendor-contract.md, "How each interface behaves"). */
export type Auth = 'apiKey' | 'accessToken';

export interface Exchange<S extends z.ZodType> {
  endpoint: string;
  method: 'GET' | 'POST';
  url: string;
  /** Path template for the trace span when the path carries an id (see ./spans.ts). */
  route?: string;
  auth: Auth;
  traceHeader?: 'X-Trace-ID' | 'X-Track-Id';
  body?: unknown;
  headers?: Record<string, string>;
  idempotent: boolean;
  knownFields?: readonly string[];
  response: S;
  /** Floor under the client's headers timeout for this endpoint; a per-call value overrides both. */
  minHeadersMs?: number;
}

const CREDENTIAL_HINT: Record<Auth, string> = {
  apiKey: 'apiKey (env REELFLOW_PROFILE_<NAME>_API_KEY)',
  accessToken: 'accessToken (env REELFLOW_PROFILE_<NAME>_ACCESS_TOKEN)',
};

function authHeaders(ctx: VendorContext, endpoint: string, auth: Auth): Record<string, string> {
  const value = ctx.credentials[auth];
  if (!value) {
    throw new MissingCredentialError(`${endpoint}: no ${CREDENTIAL_HINT[auth]} configured; not sent`, {
      endpoint,
      field: auth,
    });
  }
  return auth === 'apiKey' ? { authorization: `Bearer ${value}` } : { 'X-Access-Token': value };
}

export function secretsOf(ctx: VendorContext): string[] {
  return [ctx.credentials.apiKey, ctx.credentials.accessToken].filter((s): s is string => !!s);
}

/** Sends one request and validates the 2xx body with `x.response`. */
export async function exchange<S extends z.ZodType>(
  ctx: VendorContext,
  x: Exchange<S>,
  opts: CallOptions = {},
): Promise<z.output<S>> {
  const headers = { ...x.headers, ...authHeaders(ctx, x.endpoint, x.auth) };
  const t = { ...ctx.timeouts, ...opts.timeouts };
  const headersMs = opts.timeouts?.headersMs ?? Math.max(t.headersMs, x.minHeadersMs ?? 0);
  const res = await httpRequest({
    endpoint: x.endpoint,
    method: x.method,
    url: x.url,
    ...(x.route ? { route: x.route } : {}),
    headers,
    body: x.body,
    ...(x.traceHeader ? { traceHeader: x.traceHeader } : {}),
    idempotent: x.idempotent,
    ...(x.knownFields ? { knownFields: x.knownFields } : {}),
    dispatcher: ctx.dispatcherFor(t.connectMs),
    headersTimeoutMs: headersMs,
    bodyTimeoutMs: t.bodyMs,
    ...(opts.signal ? { signal: opts.signal } : {}),
    secrets: secretsOf(ctx),
    now: ctx.now,
  });
  const meta: ResponseMeta = { endpoint: x.endpoint, status: res.status, headers: res.headers };
  if (res.traceId) meta.traceId = res.traceId;
  opts.onResponse?.(meta);
  return parseResponse({ ...meta, idempotent: x.idempotent }, x.response, res.json);
}

/** Joins a base address and a path without doubling slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** Encodes a path parameter; an empty or non-string one is a RejectedError naming `field`. */
export function pathParam(endpoint: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new RejectedError(`${endpoint}: invalid field ${field}: must be a non-empty string (not sent)`, {
      endpoint,
      field,
    });
  }
  return encodeURIComponent(value);
}
