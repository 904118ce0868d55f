/**
 * Callback capability URLs (docs/operations.md, "Callbacks"): every create that carries a callback
 * gets a URL unique to (workflow, run, step, attempt), authenticated by an HMAC token. Whoever
 * holds the URL can send that one hint to that one workflow step, nothing more; a callback is a
 * hint the workflow confirms with one query, never a result.
 *
 *   v2 {base}/callbacks/{enc(workflowId)}/{enc(step)}/{attempt}/{firstRunId}/{token}
 *   v1 {base}/callbacks/{enc(workflowId)}/{enc(step)}/{attempt}/{token}
 *
 * token = first 32 hex chars (128 bits) of HMAC-SHA256(secret, encoding(...)). v2 binds the
 * pipeline's first run id (it survives continue-as-new), so an earlier pipeline under the
 * same workflow id cannot speak for a later one. v1 URLs were handed out before runs were
 * bound: they stay valid, and the workflow accepts them only for attempts it began so.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const CALLBACK_PATH_SEGMENT = 'callbacks';
export const CALLBACK_TOKEN_LENGTH = 32;

/** Domain separation: a token is valid for this purpose and this encoding version only. */
const TOKEN_CONTEXT = 'reelflow.callback.v1';
const TOKEN_CONTEXT_RUN = 'reelflow.callback.v2';

/** A Temporal run id (a UUID); a v2 path's run segment must look like one. */
const RUN_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface CallbackTarget {
  workflowId: string;
  step: string;
  attempt: number;
  /** The pipeline's first run id (v2 URLs); absent for v1 URLs. */
  run?: string;
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
export function callbackToken(secret: string, workflowId: string, step: string, attempt: number, run?: string): string {
  if (!secret) throw new TypeError('callback secret must not be empty');
  checkAttempt(attempt);
  if (run !== undefined && !RUN_ID_PATTERN.test(run)) throw new TypeError('callback run: must be a Temporal run id');
  const field = (s: string): string => `${Buffer.byteLength(s, 'utf8')}:${s}`;
  const parts = [field(workflowId), field(step), String(attempt)];
  const message = (run === undefined ? [TOKEN_CONTEXT, ...parts] : [TOKEN_CONTEXT_RUN, ...parts, run]).join('\n');
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex').slice(0, CALLBACK_TOKEN_LENGTH);
}

/** The full capability URL to hand to the vendor (v2 with `run`). `base` may carry a path prefix. */
export function buildCallbackUrl(
  base: string,
  secret: string,
  workflowId: string,
  step: string,
  attempt: number,
  run?: string,
): string {
  const token = callbackToken(secret, workflowId, step, attempt, run);
  const root = base.replace(/\/+$/, '');
  const runPart = run === undefined ? '' : `/${run}`;
  return `${root}/${CALLBACK_PATH_SEGMENT}/${encodeURIComponent(workflowId)}/${encodeURIComponent(step)}/${attempt}${runPart}/${token}`;
}

export type CallbackPathResult =
  | { ok: true; target: CallbackTarget }
  /** `malformed`: not a callback path at all; `bad-token`: well formed, token wrong. */
  | { ok: false; reason: 'malformed' | 'bad-token' };

/**
 * Parses and authenticates a request path, v2 first, then v1. Any prefix before
 * `/callbacks/` is allowed, so a base URL with a path works whether or not a reverse proxy
 * strips it; the segments after it are fixed. The token comparison is constant-time. A
 * token authenticates one form only (each has its own HMAC context).
 */
export function checkCallbackPath(secret: string, pathname: string): CallbackPathResult {
  const segments = pathname.split('/');
  const n = segments.length;
  const v2 = n >= 7 && segments[n - 6] === CALLBACK_PATH_SEGMENT && RUN_ID_PATTERN.test(segments[n - 2]);
  const v1 = n >= 6 && segments[n - 5] === CALLBACK_PATH_SEGMENT;
  const asV2 = v2 ? checkSegments(secret, segments.slice(n - 5)) : undefined;
  if (asV2?.ok || (asV2 && !v1)) return asV2;
  if (!v1) return { ok: false, reason: 'malformed' };
  const asV1 = checkSegments(secret, segments.slice(n - 4));
  // A path both forms could read: the v2 reading's reason when the v1 reading is not a callback path.
  return asV2 && !asV1.ok && asV1.reason === 'malformed' ? asV2 : asV1;
}

/** [workflowId, step, attempt, (run,) token]: decoded, canonical, and the token checked. */
function checkSegments(secret: string, segs: string[]): CallbackPathResult {
  const [rawWorkflowId, rawStep, rawAttempt] = segs as [string, string, string];
  const run = segs.length === 5 ? segs[3] : undefined;
  const token = segs[segs.length - 1];
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
  const expected = Buffer.from(callbackToken(secret, workflowId, step, attempt, run), 'utf8');
  const given = Buffer.from(token, 'utf8');
  if (!timingSafeEqual(expected, given)) return { ok: false, reason: 'bad-token' };
  return { ok: true, target: { workflowId, step, attempt, ...(run === undefined ? {} : { run }) } };
}
