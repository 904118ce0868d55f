/**
 * Vendor configuration from the environment. Addresses and timeouts are plain config;
 * credentials come from named profiles so pipeline definitions (and so workflow
 * history) carry only a profile name, never a secret.
 *
 *   VENDOR_BASE_URL, VENDOR_IDENTITY_URL            required, http(s)
 *   VENDOR_TIMEOUT_MS                               default for headers and body timeouts
 *   VENDOR_CONNECT_TIMEOUT_MS, VENDOR_HEADERS_TIMEOUT_MS, VENDOR_BODY_TIMEOUT_MS
 *   VENDOR_PATH_WORD                                the vendor word the spec writes as `svc` (default svc)
 *   REELFLOW_PROFILE_<NAME>_API_KEY                 Bearer key for {base_url}
 *   REELFLOW_PROFILE_<NAME>_ACCESS_TOKEN            X-Access-Token for {identity_url}
 *
 * Errors name the variable, never its value.
 */
import { z } from 'zod';
import { VendorConfigError } from './errors';
import { DEFAULT_TIMEOUTS, type Timeouts } from './http';

export type Env = Record<string, string | undefined>;

export interface VendorConfig {
  baseUrl: string;
  identityUrl: string;
  timeouts: Timeouts;
  /** The path word the spec writes as `svc` (erase paths). */
  pathWord: string;
}

/**
 * The vendor word in paths such as /api/v1/svc-tasks/{id}: the spec's preamble writes
 * `svc` where the real paths carry the vendor's own word. One path-safe token.
 */
export const DEFAULT_PATH_WORD = 'svc';
export const PATH_WORD_PATTERN = /^[A-Za-z0-9_-]+$/;
const PATH_WORD_RULE = 'must be letters, digits, - and _ only';

/** An http(s) base address: no query, fragment or userinfo (credentials go in headers). */
export const BASE_URL_PATTERN = /^https?:\/\/[^\s/?#@]+(?:\/[^\s?#]*)?$/i;

const Url = z
  .string()
  .regex(BASE_URL_PATTERN, 'must be an http(s) URL without query or credentials')
  .transform((s) => s.replace(/\/+$/, ''));
const Ms = z.coerce.number().int('must be an integer (ms)').positive('must be positive (ms)');

const VendorEnvSchema = z.object({
  VENDOR_BASE_URL: Url,
  VENDOR_IDENTITY_URL: Url,
  VENDOR_TIMEOUT_MS: Ms.optional(),
  VENDOR_CONNECT_TIMEOUT_MS: Ms.optional(),
  VENDOR_HEADERS_TIMEOUT_MS: Ms.optional(),
  VENDOR_BODY_TIMEOUT_MS: Ms.optional(),
  VENDOR_PATH_WORD: z.string().regex(PATH_WORD_PATTERN, PATH_WORD_RULE).optional(),
});

export function loadVendorConfig(env: Env = process.env): VendorConfig {
  const picked = Object.fromEntries(
    Object.keys(VendorEnvSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]),
  );
  const r = VendorEnvSchema.safeParse(picked);
  if (!r.success) {
    const issue = r.error.issues[0];
    const variable = String(issue?.path[0] ?? 'VENDOR_*');
    const why = picked[variable] === undefined ? 'is required' : `is invalid: ${issue?.message ?? 'bad value'}`;
    throw new VendorConfigError(`vendor config: ${variable} ${why}`, variable);
  }
  const e = r.data;
  return {
    baseUrl: e.VENDOR_BASE_URL,
    identityUrl: e.VENDOR_IDENTITY_URL,
    timeouts: {
      connectMs: e.VENDOR_CONNECT_TIMEOUT_MS ?? DEFAULT_TIMEOUTS.connectMs,
      headersMs: e.VENDOR_HEADERS_TIMEOUT_MS ?? e.VENDOR_TIMEOUT_MS ?? DEFAULT_TIMEOUTS.headersMs,
      bodyMs: e.VENDOR_BODY_TIMEOUT_MS ?? e.VENDOR_TIMEOUT_MS ?? DEFAULT_TIMEOUTS.bodyMs,
    },
    pathWord: e.VENDOR_PATH_WORD ?? DEFAULT_PATH_WORD,
  };
}

/** The path word, or a VendorConfigError naming `name` (an option or variable). */
export function checkPathWord(name: string, value: unknown): string {
  if (value === undefined) return DEFAULT_PATH_WORD;
  if (typeof value !== 'string' || !PATH_WORD_PATTERN.test(value)) {
    throw new VendorConfigError(`vendor client: ${name} ${PATH_WORD_RULE}`, name);
  }
  return value;
}

export type CredentialKind = 'apiKey' | 'accessToken';

/** Secrets of one profile. Redacted when logged, inspected or serialized. */
export interface VendorCredentials {
  readonly profile: string;
  readonly apiKey?: string;
  readonly accessToken?: string;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** The environment variable holding one credential of a profile. */
export function profileVariable(profile: string, kind: CredentialKind): string {
  if (!PROFILE_NAME.test(profile)) {
    throw new VendorConfigError(
      'credential profile name must be letters, digits, - and _ (starting with a letter or digit)',
      'profile',
    );
  }
  const suffix = kind === 'apiKey' ? 'API_KEY' : 'ACCESS_TOKEN';
  return `REELFLOW_PROFILE_${profile.toUpperCase().replace(/-/g, '_')}_${suffix}`;
}

const REDACTED = '[redacted]';

/**
 * Reads a profile's secrets. Each kind in `require` must be set (default both), else a
 * VendorConfigError names the missing variable.
 */
export function resolveProfile(
  profile: string,
  env: Env = process.env,
  require: readonly CredentialKind[] = ['apiKey', 'accessToken'],
): VendorCredentials {
  const found: { apiKey?: string; accessToken?: string } = {};
  for (const kind of ['apiKey', 'accessToken'] as const) {
    const variable = profileVariable(profile, kind);
    const value = env[variable]?.trim();
    if (value) found[kind] = value;
    else if (require.includes(kind)) {
      throw new VendorConfigError(`credential profile "${profile}": ${variable} is not set`, variable);
    }
  }
  const shown = {
    profile,
    ...(found.apiKey ? { apiKey: REDACTED } : {}),
    ...(found.accessToken ? { accessToken: REDACTED } : {}),
  };
  const creds = { profile, ...found };
  // JSON.stringify and util.inspect show [redacted]; a copy made with spread does not keep this.
  Object.defineProperties(creds, {
    toJSON: { value: () => shown },
    [Symbol.for('nodejs.util.inspect.custom')]: { value: () => shown },
  });
  return creds;
}
