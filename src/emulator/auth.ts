/**
 * Credentials → principals. Handlers and logs only ever see a label ("key#1",
 * "user#2"), never the key or token, so nothing downstream can leak a secret.
 */
import { simpleError } from './errors';
import { header, type EmuRequest, type Reply } from './http';

export type AuthResult = { ok: true; principal: string } | { ok: false; reason: 'missing' | 'invalid' };

export class Principals {
  private readonly keys: Map<string, string>;
  private readonly tokens: Map<string, string>;

  constructor(apiKeys: readonly string[], accessTokens: readonly string[]) {
    this.keys = new Map(apiKeys.map((k, i) => [k, `key#${i + 1}`]));
    this.tokens = new Map(accessTokens.map((t, i) => [t, `user#${i + 1}`]));
  }

  /** The user labels, one per configured access token, in order. */
  users(): string[] {
    return [...this.tokens.values()];
  }

  /** `Authorization: Bearer <API key>` (generation, erasure). */
  apiKey(req: EmuRequest): AuthResult {
    const value = header(req, 'authorization');
    if (!value) return { ok: false, reason: 'missing' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
    const principal = match ? this.keys.get(match[1]) : undefined;
    return principal ? { ok: true, principal } : { ok: false, reason: 'invalid' };
  }

  /** `X-Access-Token: <token>` (asset management, review). */
  accessToken(req: EmuRequest): AuthResult {
    const value = header(req, 'x-access-token');
    if (!value) return { ok: false, reason: 'missing' };
    const principal = this.tokens.get(value.trim());
    return principal ? { ok: true, principal } : { ok: false, reason: 'invalid' };
  }
}

/** Bearer check for generation and erasure: the principal, or the 401 to answer. */
export function requireApiKey(principals: Principals, req: EmuRequest): { principal: string } | { reply: Reply } {
  const auth = principals.apiKey(req);
  if (auth.ok) return { principal: auth.principal };
  const message =
    auth.reason === 'missing' ? 'Authorization header with a Bearer API key is required' : 'invalid API key';
  return { reply: simpleError(401, message, { principal: 'unknown' }) };
}
