/**
 * Callback capability URLs (DESIGN §3): every create that carries a callback gets a URL
 * unique to (workflow, step, attempt), authenticated by an HMAC token. Whoever holds the
 * URL can send that one hint to that one workflow step, nothing more; a callback is a
 * hint the workflow confirms with one query, never a result.
 *
 *   {base}/callbacks/{encodeURIComponent(workflowId)}/{encodeURIComponent(step)}/{attempt}/{token}
 *
 * token = first 32 hex chars (128 bits) of HMAC-SHA256(secret, encoding(workflowId, step, attempt)).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const CALLBACK_PATH_SEGMENT = 'callbacks';
export const CALLBACK_TOKEN_LENGTH = 32;

/** Domain separation: a token is valid for this purpose and this encoding version only. */
const TOKEN_CONTEXT = 'reelflow.callback.v1';

export interface CallbackTarget {
  workflowId: string;
  step: string;
  attempt: number;
}

function checkAttempt(attempt: number): void {
  if (!Number.isSafeInteger(attempt) || attempt < 0) {
    throw new TypeError(`callback attempt must be a non-negative integer, got ${String(attempt)}`);
  }
}

/**
 * HMAC over an unambiguous encoding: each string is length-prefixed (UTF-8 byte length),
 * so ("a/b", "c") and ("a", "b/c") can never produce the same input.
 */
export function callbackToken(secret: string, workflowId: string, step: string, attempt: number): string {
  if (!secret) throw new TypeError('callback secret must not be empty');
  checkAttempt(attempt);
  const field = (s: string): string => `${Buffer.byteLength(s, 'utf8')}:${s}`;
  const message = [TOKEN_CONTEXT, field(workflowId), field(step), String(attempt)].join('\n');
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex').slice(0, CALLBACK_TOKEN_LENGTH);
}

/** The full capability URL to hand to the vendor. `base` may carry a path prefix. */
export function buildCallbackUrl(
  base: string,
  secret: string,
  workflowId: string,
  step: string,
  attempt: number,
): string {
  const token = callbackToken(secret, workflowId, step, attempt);
  const root = base.replace(/\/+$/, '');
  return `${root}/${CALLBACK_PATH_SEGMENT}/${encodeURIComponent(workflowId)}/${encodeURIComponent(step)}/${attempt}/${token}`;
}

export type CallbackPathResult =
  | { ok: true; target: CallbackTarget }
  /** `malformed`: not a callback path at all; `bad-token`: well formed, token wrong. */
  | { ok: false; reason: 'malformed' | 'bad-token' };

/**
 * Parses and authenticates a request path. Any prefix before `/callbacks/` is allowed,
 * so a base URL with a path works whether or not a reverse proxy strips it; the four
 * segments after it are fixed. The token comparison is constant-time.
 */
export function checkCallbackPath(secret: string, pathname: string): CallbackPathResult {
  const segments = pathname.split('/');
  const n = segments.length;
  if (n < 6 || segments[n - 5] !== CALLBACK_PATH_SEGMENT) return { ok: false, reason: 'malformed' };
  const [rawWorkflowId, rawStep, rawAttempt, token] = segments.slice(n - 4) as [string, string, string, string];
  let workflowId: string;
  let step: string;
  try {
    workflowId = decodeURIComponent(rawWorkflowId);
    step = decodeURIComponent(rawStep);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  // Canonical decimal only ("01" or "1e0" would be a second spelling of one URL).
  if (!workflowId || !step || !/^(0|[1-9][0-9]{0,14})$/.test(rawAttempt)) return { ok: false, reason: 'malformed' };
  const attempt = Number(rawAttempt);
  if (!/^[0-9a-f]+$/.test(token) || token.length !== CALLBACK_TOKEN_LENGTH) return { ok: false, reason: 'bad-token' };
  const expected = Buffer.from(callbackToken(secret, workflowId, step, attempt), 'utf8');
  const given = Buffer.from(token, 'utf8');
  if (!timingSafeEqual(expected, given)) return { ok: false, reason: 'bad-token' };
  return { ok: true, target: { workflowId, step, attempt } };
}
