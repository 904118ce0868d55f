/**
 * The gateway's configuration (docs/api.md, "Configuration"): its bearer tokens, each named
 * and mapped to one tenant or to admin, several valid at once for rotation; the per-token rate
 * limit, the request size limit, CORS origins, the stream tokens' key. Read from
 * REELFLOW_GATEWAY_TOKENS_FILE (a JSON file) or REELFLOW_GATEWAY_TOKENS (the same JSON inline).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { TenantIdSchema } from '../../definition/schema';

export const TOKENS_FILE_VARIABLE = 'REELFLOW_GATEWAY_TOKENS_FILE';
export const TOKENS_VARIABLE = 'REELFLOW_GATEWAY_TOKENS';
export const RATE_VARIABLE = 'REELFLOW_GATEWAY_RATE';
export const MAX_BODY_VARIABLE = 'REELFLOW_GATEWAY_MAX_BODY_BYTES';
export const CORS_VARIABLE = 'REELFLOW_GATEWAY_CORS_ORIGINS';
export const STREAM_SECRET_VARIABLE = 'REELFLOW_GATEWAY_STREAM_SECRET';
export const POLL_VARIABLE = 'REELFLOW_GATEWAY_POLL_MS';

const MIN_TOKEN_LENGTH = 24;

const TokenEntry = z
  .object({
    /** Who acts: recorded in the log and on the workflow (never the token itself). */
    name: z.string().regex(/^[A-Za-z0-9_.@-]{1,64}$/, 'letters, digits, "_", ".", "@" and "-", at most 64'),
    token: z.string().min(MIN_TOKEN_LENGTH, `at least ${MIN_TOKEN_LENGTH} characters`),
    tenant: TenantIdSchema.optional(),
    admin: z.literal(true).optional(),
  })
  .strict()
  .refine((t) => (t.tenant === undefined) !== (t.admin === undefined), {
    message: 'give exactly one of "tenant" or "admin": true',
  });

export const TokensFileSchema = z
  .object({ tokens: z.array(TokenEntry).min(1) })
  .strict()
  .refine((f) => new Set(f.tokens.map((t) => t.name)).size === f.tokens.length, {
    message: 'token names must be unique',
    path: ['tokens'],
  });

export type TokenEntry = z.output<typeof TokenEntry>;

/** Who a request acts as. */
export type Caller = { name: string; tenant: string; admin: false } | { name: string; admin: true; tenant?: undefined };

export interface GatewayConfig {
  tokens: TokenEntry[];
  /** Requests per second per token (a token bucket of one second's burst). */
  ratePerSecond: number;
  maxBodyBytes: number;
  /** Origins allowed by CORS; empty: CORS off. */
  corsOrigins: string[];
  /** Signs stream tokens; random per process when not set (then a stream token works on this gateway only). */
  streamSecret: Buffer;
  /** Between status queries of a watched pipeline. */
  pollMs: number;
}

export class GatewayConfigError extends Error {
  override readonly name = 'GatewayConfigError';
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
  }
}

/** Parses a tokens document; errors name the variable and the field path, never a token's value. */
export function parseTokens(json: unknown, variable: string): TokenEntry[] {
  const r = TokensFileSchema.safeParse(json);
  if (r.success) return r.data.tokens;
  const issue = r.error.issues[0];
  throw new GatewayConfigError(variable, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
}

function readTokens(env: NodeJS.ProcessEnv): TokenEntry[] {
  const file = env[TOKENS_FILE_VARIABLE]?.trim();
  const inline = env[TOKENS_VARIABLE]?.trim();
  if (file && inline) throw new GatewayConfigError(TOKENS_VARIABLE, `set it or ${TOKENS_FILE_VARIABLE}, not both`);
  const variable = file ? TOKENS_FILE_VARIABLE : TOKENS_VARIABLE;
  if (!file && !inline) throw new GatewayConfigError(TOKENS_FILE_VARIABLE, `is required (or ${TOKENS_VARIABLE})`);
  let text: string;
  try {
    text = file ? readFileSync(file, 'utf8') : inline!;
  } catch (err) {
    throw new GatewayConfigError(variable, `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new GatewayConfigError(variable, 'is not JSON ({"tokens": [{"name", "token", "tenant" | "admin": true}]})');
  }
  return parseTokens(json, variable);
}

function positive(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new GatewayConfigError(variable, `a positive number (got "${raw}")`);
  return n;
}

function origins(env: NodeJS.ProcessEnv): string[] {
  const list = (env[CORS_VARIABLE] ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of list) {
    if (!/^https?:\/\/[^\s/?#@]+$/i.test(o)) {
      throw new GatewayConfigError(CORS_VARIABLE, `"${o}" is not an origin (scheme://host[:port], no path)`);
    }
  }
  return list;
}

function streamSecret(env: NodeJS.ProcessEnv): Buffer {
  const raw = env[STREAM_SECRET_VARIABLE]?.trim();
  if (!raw) return randomBytes(32);
  if (raw.length < 32) throw new GatewayConfigError(STREAM_SECRET_VARIABLE, 'at least 32 characters');
  return Buffer.from(raw, 'utf8');
}

/** The whole configuration from the environment; a GatewayConfigError names the variable at fault. */
export function gatewayConfigFromEnv(env: NodeJS.ProcessEnv): GatewayConfig {
  return {
    tokens: readTokens(env),
    ratePerSecond: positive(env, RATE_VARIABLE, 20),
    maxBodyBytes: positive(env, MAX_BODY_VARIABLE, 4 * 1024 * 1024),
    corsOrigins: origins(env),
    streamSecret: streamSecret(env),
    pollMs: positive(env, POLL_VARIABLE, 500),
  };
}
