/**
 * src/webhooks/ is OUTBOUND: reelflow tells the user's backend that a pipeline ended or
 * waits for an operator (completion webhooks: signing, secrets, the private-target
 * allowance; the workflow and the activity that deliver them are in src/workflows/webhook.ts
 * and src/activities/webhook.ts). Its inbound counterpart, src/callbacks/, receives the
 * vendor's calls (docs/architecture.md, "Layout"; docs/webhooks.md).
 *
 * Standard Webhooks signing (https://www.standardwebhooks.com): the sender signs
 * `<webhook-id>.<webhook-timestamp>.<body>` with HMAC-SHA256 under the secret's bytes
 * (`whsec_<base64>`), and sends `webhook-signature: v1,<base64>`. A receiver checks the
 * signature in constant time and refuses a timestamp too far from its clock (replays).
 * The secret's value never appears in an error message.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The prefix of a Standard Webhooks secret; the rest is the key in base64. */
const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** The spec's default tolerance between the sender's timestamp and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** Why a secret is not a usable `whsec_<base64>` key (at least 16 bytes), or undefined. Never echoes it. */
export function webhookSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return `must start with ${SECRET_PREFIX} (whsec_<base64 key>)`;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(b64) || b64.length % 4 !== 0) return `must be ${SECRET_PREFIX} followed by base64`;
  if (Buffer.from(b64, 'base64').length < 16) return 'the key must be at least 16 bytes';
  return undefined;
}

function keyOf(secret: string): Buffer {
  const problem = webhookSecretProblem(secret);
  if (problem) throw new WebhookVerificationError('invalid_secret', `webhook secret ${problem}`);
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** The `v1,<base64>` signature of one message. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The secrets of one configured value: one `whsec_…`, or several separated by spaces while
 * a secret is being rotated (the sender signs with each; a receiver accepts any).
 */
export function webhookSecretsOf(value: string): string[] {
  return value.split(/\s+/).filter(Boolean);
}

/** Why a configured value (one secret, or several space-separated) is unusable, or undefined. Never echoes it. */
export function webhookSecretListProblem(value: string): string | undefined {
  const secrets = webhookSecretsOf(value);
  if (secrets.length === 0) return `must be ${SECRET_PREFIX}<base64 key> (several separated by spaces while rotating)`;
  for (const [i, secret] of secrets.entries()) {
    const problem = webhookSecretProblem(secret);
    if (problem) return secrets.length === 1 ? problem : `secret ${i + 1} of ${secrets.length} ${problem}`;
  }
  return undefined;
}

/**
 * The three headers of one delivery (the timestamp is the send time, unix seconds). With
 * several secrets (a rotation), one `v1,` signature per secret, space-separated, as
 * Standard Webhooks allows: a receiver holding either secret verifies it.
 */
export function webhookHeaders(
  secrets: string | readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  const list = typeof secrets === 'string' ? webhookSecretsOf(secrets) : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': list.map((secret) => signWebhook(secret, id, timestamp, body)).join(' '),
  };
}

export type WebhookVerificationCode =
  'invalid_secret' | 'missing_header' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'no_matching_signature';

/** A delivery that must not be trusted: answer it 400/401 and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** How far webhook-timestamp may be from `now`, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The receiver's clock, unix ms (default Date.now()). */
  now?: number;
}

/** Header lookup over a plain object (any case) or a Fetch `Headers`. */
function header(headers: Headers | Record<string, string | string[] | undefined>, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : (headers as Record<string, string | string[] | undefined>)[key];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Checks a delivery: the raw body exactly as received (not re-serialized JSON), its
 * headers, your `whsec_…` secret. Returns the parsed event; throws a
 * WebhookVerificationError (with a `code`) when anything is off.
 */
export function verifyWebhook<T = unknown>(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string | Buffer,
  opts: VerifyWebhookOptions = {},
): T {
  const key = keyOf(secret);
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  const missing = [
    ['webhook-id', id],
    ['webhook-timestamp', ts],
    ['webhook-signature', sigs],
  ].find((h) => !h[1]);
  if (missing) throw new WebhookVerificationError('missing_header', `${missing[0]} header missing`);
  if (!/^\d{1,12}$/.test(ts!))
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not unix seconds');
  const skew = Math.abs((opts.now ?? Date.now()) / 1000 - Number(ts));
  if (skew > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `webhook-timestamp is ${Math.round(skew)} s away from now`,
    );
  }
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${text}`).digest();
  const match = sigs!.split(' ').some((entry) => {
    const [version, b64] = entry.split(',', 2);
    if (version !== 'v1' || !b64) return false;
    // Strict: Buffer.from ignores what follows valid base64, so junk appended to a genuine
    // signature would still match. Only the exact encoding of 32 bytes is accepted.
    const given = Buffer.from(b64, 'base64');
    if (given.toString('base64') !== b64) return false;
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) throw new WebhookVerificationError('no_matching_signature', 'no webhook-signature matches the body');
  return JSON.parse(text) as T;
}
