/**
 * The shapes the emulator answers in. 'seed' is reelflow's reading of the spec
 * (src/vendor-api/assumed-shapes.ts). 'upstream' is the service behind the vendor, where
 * the spec says "not shown": Ark content generation (content.video_url, error {code, message},
 * created_at/updated_at, no finished_at), `null` for every absent optional field, erase
 * tasks that pass through NOT_START, and Volcengine OpenAPI asset management
 * (ResponseMetadata.Error, Processing, Items + TotalCount).
 *
 * View builders use `withNulls`; error bodies are rewritten once, in server.ts (`dialectError`).
 */
import type { Interface } from './errors';
import { isRecord, type Reply } from './http';

export const DIALECTS = ['seed', 'upstream'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** Region/Service/Version of asset-management ResponseMetadata. */
export const RESPONSE_METADATA = { Region: 'emulator-local', Service: 'asset-management', Version: '2024-01-01' };

export function responseMetadata(action: string | undefined, requestId: string): Record<string, unknown> {
  return { Action: action ?? '', ...RESPONSE_METADATA, RequestId: requestId };
}

/** `view` with `null` for each listed optional field that is absent, in the upstream dialect. */
export function withNulls<T extends object>(dialect: Dialect, view: T, optional: readonly string[]): T {
  if (dialect !== 'upstream') return view;
  const out = { ...view } as Record<string, unknown>;
  for (const k of optional) out[k] ??= null;
  return out as T;
}

/** The seed dialect writes "none" as an empty string; the upstream writes null. */
export function noneAs(dialect: Dialect, value: string): string | null {
  return dialect === 'upstream' && value === '' ? null : value;
}

/** Asset-management 502 code: the real one carries a vendor word in place of "Upstream" (docs/vendor-contract.md). */
export function callFailedCode(dialect: Dialect, pathWord: string): string {
  if (dialect !== 'upstream') return 'UpstreamCallFailed';
  return `${pathWord.charAt(0).toUpperCase()}${pathWord.slice(1)}CallFailed`;
}

/** Error codes the upstream's generation-style APIs answer with, by HTTP status. */
const UPSTREAM_CODES: Record<number, string> = {
  400: 'InvalidParameter',
  401: 'AuthenticationError',
  403: 'AccessDenied',
  404: 'ResourceNotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  429: 'RateLimitExceeded',
  501: 'NotImplemented',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
};

/**
 * An error reply in the dialect's shape. Upstream: asset management answers
 * `{ResponseMetadata: {…, Error: {Code, Message}}}` with no top-level Code; the other
 * interfaces answer `{error: {code, message, param, type}}`. Media errors stay as they are.
 */
export function dialectError(dialect: Dialect, iface: Interface, reply: Reply, action: string | undefined): Reply {
  const body = reply.body;
  if (dialect !== 'upstream' || reply.status < 400 || iface === 'media' || !isRecord(body)) return reply;
  if (iface === 'assets') {
    const meta = responseMetadata(action, typeof body.TrackId === 'string' ? body.TrackId : '');
    return { ...reply, body: { ResponseMetadata: { ...meta, Error: { Code: body.Code, Message: body.Message } } } };
  }
  const code = UPSTREAM_CODES[reply.status] ?? 'InternalServiceError';
  return { ...reply, body: { error: { code, message: body.message, param: null, type: null } } };
}
