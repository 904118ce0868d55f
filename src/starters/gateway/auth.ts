/**
 * Who a request acts as (docs/security.md, "The gateway"): a bearer token from the
 * configuration, compared in constant time against every configured token (digests of equal
 * length, no early exit, so neither the match nor its position shows in the timing), or a
 * short-lived stream token for browsers' EventSource, which cannot send a header.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Caller, TokenEntry } from './config';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export interface TokenBook {
  lookup(presented: string): Caller | undefined;
}

function callerOf(t: TokenEntry): Caller {
  return t.admin ? { name: t.name, admin: true } : { name: t.name, tenant: t.tenant!, admin: false };
}

/** The configured tokens, kept as digests only. */
export function tokenBook(tokens: readonly TokenEntry[]): TokenBook {
  const entries = tokens.map((t) => ({ hash: digest(t.token), caller: callerOf(t) }));
  return {
    lookup(presented) {
      const h = digest(presented);
      let found: Caller | undefined;
      for (const e of entries) if (timingSafeEqual(h, e.hash) && !found) found = e.caller;
      return found;
    },
  };
}

/** The token of an `Authorization: Bearer <token>` header, else undefined. */
export function bearerOf(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

/** What a stream token carries: who, for which pipeline (or the tenant-wide stream), until when. */
interface StreamClaims {
  n: string;
  t?: string;
  a?: true;
  p?: string;
  exp: number;
}

export const STREAM_TOKEN_TTL_MS = 60_000;

const b64 = (b: Buffer) => b.toString('base64url');

/**
 * A stream token: base64url(claims).base64url(HMAC-SHA256). It opens one event stream (a
 * pipeline's, or the tenant-wide one when `pipelineId` is absent) and is refused after
 * `ttlMs`; a stream already open runs on. It never carries the bearer token.
 */
export function signStreamToken(
  secret: Buffer,
  caller: Caller,
  pipelineId: string | undefined,
  nowMs = Date.now(),
  ttlMs = STREAM_TOKEN_TTL_MS,
): { token: string; expiresAt: string } {
  const claims: StreamClaims = {
    n: caller.name,
    ...(caller.admin ? { a: true as const } : { t: caller.tenant }),
    ...(pipelineId !== undefined ? { p: pipelineId } : {}),
    exp: nowMs + ttlMs,
  };
  const body = b64(Buffer.from(JSON.stringify(claims)));
  const mac = b64(createHmac('sha256', secret).update(body).digest());
  return { token: `${body}.${mac}`, expiresAt: new Date(claims.exp).toISOString() };
}

/** The caller a stream token stands for, when its MAC holds, it has not expired and it is for this stream. */
export function verifyStreamToken(
  secret: Buffer,
  token: string,
  pipelineId: string | undefined,
  nowMs = Date.now(),
): Caller | undefined {
  const [body, mac, extra] = token.split('.');
  if (!body || !mac || extra !== undefined) return undefined;
  const want = createHmac('sha256', secret).update(body).digest();
  const got = Buffer.from(mac, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  let claims: StreamClaims;
  try {
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StreamClaims;
  } catch {
    return undefined;
  }
  if (typeof claims.exp !== 'number' || claims.exp < nowMs || claims.p !== pipelineId) return undefined;
  if (claims.a) return { name: claims.n, admin: true };
  return typeof claims.t === 'string' ? { name: claims.n, tenant: claims.t, admin: false } : undefined;
}
