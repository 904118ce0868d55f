/**
 * HTTP receiver for vendor callbacks (docs/security.md "Callbacks"): authenticates the
 * capability URL, reads the task id and status the body carries, and signals the workflow.
 * The signal is a hint; a task id it names is adopted only with proof
 * (src/workflows/lib/callbacks/offers.ts). The receiver never decides a result.
 *
 * Before it reads a body, it refuses what the path alone decides (docs/operations.md
 * "Callbacks", the receiver's limits): a run chain it knows is closed (410), a declared body
 * over the limit (413), a URL whose token bucket is empty (429), more bodies being read at
 * once than `maxReading` (503). A flood thus costs a connection, never a buffered body.
 * After the read, it drops an exact replay of a callback it relayed (guard.ts), and asks the stage with the query
 * `callbackVerdict` (no history event) whether the callback is news, unless a verdict it
 * remembers already says (verdicts.ts). A callback not judged and signalled within
 * `answerWithinMs` is acknowledged with 202 and relayed after: the vendor waits 5 s for an
 * answer, and a busy worker must not make it give up (lanes.ts bounds what waits).
 *
 *   POST {base}/callbacks/{workflowId}/{step}/{attempt}/{token}
 *     204  signalled, or nothing to signal (a replay, a settled step, a task the step does not wait for)
 *     202  taken, still being judged or signalled (answered at answerWithinMs)
 *     401  token wrong (no signal)          404  not a callback path (no signal)
 *     400  body is not JSON                  413  body over the limit
 *     410  workflow unknown or closed        429  too many for this URL (Retry-After)
 *     503  signalling failed, or too many callbacks waiting to be relayed: try again later
 *   GET /healthz → 200
 *
 * Logs name workflowId, step, attempt, task id and status, escaped (one line each): never
 * the token, the secret or a URL that carries a token.
 */
import http from 'node:http';
import { Client, QueryRejectedError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { GenerationCallbackSchema, ReviewCallbackSchema } from '../vendor-api/assumed-shapes';
import { EraseCallbackSchema } from '../vendor-api/schemas';
import type { OfferedTaskKind } from '../contract/stages';
import {
  callbackVerdictQuery,
  vendorCallbackSignal,
  type CallbackVerdict,
  type VendorCallbackSignal,
} from '../contract/messages';
import { localUrl, startHttpServer } from '../config/http-server';
import { printable } from '../contract/printable';
import { DEFAULT_GUARD_LIMITS, RelayGuard, type GuardLimits, type RelayKey } from './guard';
import { Lanes } from './lanes';
import { callbackStepKind, type CallbackStepKind } from './steps';
import { checkCallbackPath, type CallbackTarget } from './token';
import { DEFAULT_VERDICT_MEMORY, VerdictMemory, type VerdictMemoryLimits } from './verdicts';

export { callbackStepKind, type CallbackStepKind } from './steps';

/**
 * The largest vendor callback is a completed review batch (50 items): about 24 KiB with
 * 120-character media URLs, 64 KiB with 900-character ones; generation and erase callbacks
 * are under 1 KiB (docs/operations.md "Callbacks").
 */
export const CALLBACK_BODY_LIMIT_BYTES = 64 * 1024;
/** Bodies read at once, all receivers' URLs together: 256 × 64 KiB bounds them to 16 MiB. */
export const DEFAULT_MAX_READING = 256;
/**
 * Open connections at most. Each costs a file descriptor and some kilobytes; a genuine
 * vendor sends a few callbacks per task, so this is room for floods, not for the vendor.
 */
export const DEFAULT_MAX_CONNECTIONS = 8_192;

export interface CallbackReceiverOptions {
  /** Interface to listen on; default 0.0.0.0 (the vendor must reach it). */
  host?: string;
  /** 0 = any free port. */
  port: number;
  secret: string;
  client: Client;
  /** One line per event; rejections and refusals are 'warn', failures 'error'. */
  log?: (line: string, level?: 'warn' | 'error') => void;
  /** Default CALLBACK_BODY_LIMIT_BYTES (64 KiB). */
  bodyLimitBytes?: number;
  /** Bodies being read at once; past it 503 before reading. Default DEFAULT_MAX_READING (256). */
  maxReading?: number;
  /** Open connections; past it a new one is closed at once. Default DEFAULT_MAX_CONNECTIONS (8,192). */
  maxConnections?: number;
  /** Deadline of the signal call to Temporal; past it the vendor gets 503. Default 10 s. */
  signalTimeoutMs?: number;
  /** Deadline of the `callbackVerdict` query; past it the callback is signalled anyway. Default 5 s. */
  verdictTimeoutMs?: number;
  /** Replay memory and rate per URL; default DEFAULT_GUARD_LIMITS. */
  limits?: GuardLimits;
  /** Where Temporal is, for log lines when it cannot be reached (e.g. "127.0.0.1:7233"). */
  temporalAddress?: string;
  /** A callback not judged and signalled by then is answered 202 and relayed after. Default 500 ms. */
  answerWithinMs?: number;
  /** Callbacks judged and signalled at once; default 64. */
  maxInFlight?: number;
  /** Callbacks waiting for one of those places; past it 503. Default 10,000. */
  maxQueued?: number;
  /** Verdicts remembered; default DEFAULT_VERDICT_MEMORY. */
  verdictMemory?: VerdictMemoryLimits;
}

export interface CallbackReceiver {
  /** Where it listens, e.g. http://127.0.0.1:8089 (no path, no token). */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ExtractedCallback {
  taskId?: string;
  status?: string;
  /** `schema`: the body matched the documented/assumed shape; `loose`: fields read by name only. */
  shape: 'schema' | 'loose';
}

/** Field that names the task, per interface (generation: `id`; review and erase: `task_id`). */
const ID_FIELD: Record<CallbackStepKind, readonly string[]> = {
  generation: ['id', 'task_id'],
  erase: ['task_id'],
  review: ['task_id'],
  unknown: ['task_id', 'id'],
};

/** The callback body's schema of each kind a callback may offer (a kind added to the table needs one). */
const CALLBACK_SCHEMAS: Record<OfferedTaskKind, { safeParse(body: unknown): { success: boolean; data?: unknown } }> = {
  generation: GenerationCallbackSchema,
  review: ReviewCallbackSchema,
  erase: EraseCallbackSchema,
};

function nonEmptyString(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= 512 ? v : undefined;
}

/**
 * Task id and status of a callback body, by the step's schema when it matches, else read
 * loosely by field name (an unknown shape yields undefined fields: still a useful hint).
 */
export function extractCallbackFields(step: string, body: unknown): ExtractedCallback {
  const kind = callbackStepKind(step);
  const parsed = kind === 'unknown' ? undefined : CALLBACK_SCHEMAS[kind].safeParse(body);
  if (parsed?.success) {
    const d = parsed.data as { id?: string; task_id?: string; status: string };
    const taskId = kind === 'generation' ? d.id : d.task_id;
    return { ...(taskId ? { taskId } : {}), status: d.status, shape: 'schema' };
  }
  const out: ExtractedCallback = { shape: 'loose' };
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    for (const f of ID_FIELD[kind]) {
      const v = nonEmptyString(o[f]);
      if (v) {
        out.taskId = v;
        break;
      }
    }
    const status = nonEmptyString(o.status);
    if (status) out.status = status;
  }
  return out;
}

class BodyTooLarge extends Error {}

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', (err) => {
      if (!done) {
        done = true;
        reject(err);
      }
    });
  });
}

function reply(
  res: http.ServerResponse,
  status: number,
  message?: string,
  close = false,
  extra: http.OutgoingHttpHeaders = {},
): undefined {
  if (res.headersSent) return undefined;
  const headers: http.OutgoingHttpHeaders = { ...extra };
  if (close) headers.connection = 'close';
  if (message === undefined) {
    res.writeHead(status, headers).end();
    return undefined;
  }
  const body = JSON.stringify({ error: message });
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(body);
  res.writeHead(status, headers).end(body);
  return undefined;
}

const VERDICTS: readonly CallbackVerdict[] = ['new', 'duplicate', 'settled', 'mismatch', 'stale', 'limit', 'passing'];
/** Retry-After when the stage itself says it takes no more callbacks for the step. */
const STAGE_LIMIT_RETRY_AFTER_S = 60;

/**
 * The same client, except that a query of a closed workflow is rejected by the server
 * instead of being answered by replaying its whole history on a worker.
 */
function verdictClient(client: Client): Client {
  const { connection, namespace, dataConverter, identity } = client.options;
  return new Client({ connection, namespace, dataConverter, identity, workflow: { queryRejectCondition: 'NOT_OPEN' } });
}

/** The options with their defaults, and what every request shares (the guard, the query client). */
interface Receiver {
  log: NonNullable<CallbackReceiverOptions['log']>;
  limit: number;
  signalTimeoutMs: number;
  verdictTimeoutMs: number;
  client: Client;
  /** The client that asks `callbackVerdict` (see verdictClient). */
  asker: Client;
  secret: string;
  limits: GuardLimits;
  guard: RelayGuard;
  /** "Temporal at <address>" for log lines. */
  temporal: string;
  answerWithinMs: number;
  lanes: Lanes;
  verdicts: VerdictMemory;
  /** Bodies being read now, and the most at once. */
  reading: { now: number; max: number };
  /** Refusals before the read, per reason, for a log that names the first and then counts. */
  refusals: Map<string, number>;
}

function receiverOf(opts: CallbackReceiverOptions): Receiver {
  const limits = opts.limits ?? DEFAULT_GUARD_LIMITS;
  return {
    log: opts.log ?? ((line: string) => console.log(line)),
    limit: opts.bodyLimitBytes ?? CALLBACK_BODY_LIMIT_BYTES,
    signalTimeoutMs: opts.signalTimeoutMs ?? 10_000,
    verdictTimeoutMs: opts.verdictTimeoutMs ?? 5_000,
    client: opts.client,
    asker: verdictClient(opts.client),
    secret: opts.secret,
    limits,
    guard: new RelayGuard(limits),
    temporal: opts.temporalAddress ? `Temporal at ${opts.temporalAddress}` : 'Temporal',
    answerWithinMs: opts.answerWithinMs ?? 500,
    lanes: new Lanes(opts.maxInFlight ?? 64, opts.maxQueued ?? 10_000),
    verdicts: new VerdictMemory(opts.verdictMemory ?? DEFAULT_VERDICT_MEMORY),
    reading: { now: 0, max: opts.maxReading ?? DEFAULT_MAX_READING },
    refusals: new Map(),
  };
}

/** One callback on its way to the workflow: its signal, its guard key and its log line. */
interface Relay {
  workflowId: string;
  key: RelayKey;
  signal: VendorCallbackSignal;
  /** "workflowId=… step=… attempt=… taskId=… status=… shape=…", escaped. */
  what: string;
}

/** The stage's verdict; `unknown` (signal anyway) when it cannot say: an older stage, a slow worker. */
async function askStage(
  r: Receiver,
  workflowId: string,
  signal: VendorCallbackSignal,
): Promise<CallbackVerdict | 'unknown' | 'gone'> {
  try {
    const verdict = await r.asker.workflow.withDeadline(Date.now() + r.verdictTimeoutMs, () =>
      r.asker.workflow.getHandle(workflowId).query(callbackVerdictQuery, signal),
    );
    return VERDICTS.includes(verdict) ? verdict : 'unknown';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || err instanceof QueryRejectedError) return 'gone';
    return 'unknown';
  }
}

/** Replays and floods are logged once per run of refusals, then every 100th: a flood must not flood the log. */
function logRefusal(r: Receiver, key: RelayKey, line: string): void {
  const n = r.guard.refusedInARow(key);
  if (n === 1 || n % 100 === 0) r.log(n === 1 ? line : `${line} (${n} refused in a row)`, 'warn');
}

/** The health check, or a callback path whose token is right: its target; otherwise answered here. */
function authorised(r: Receiver, req: http.IncomingMessage, res: http.ServerResponse): CallbackTarget | undefined {
  // Only the path matters; a query string (if a vendor appends one) is ignored.
  const pathname = (req.url ?? '/').split('?')[0] ?? '/';
  if (pathname === '/healthz') {
    if (req.method === 'GET' || req.method === 'HEAD') return reply(res, 200);
    return reply(res, 405, 'method not allowed');
  }
  const auth = checkCallbackPath(r.secret, pathname);
  if (!auth.ok && auth.reason === 'malformed') return reply(res, 404, 'not found');
  if (req.method !== 'POST') return reply(res, 405, 'method not allowed');
  if (!auth.ok) {
    // Nothing from the path is logged: it is attacker-chosen and may carry a real token.
    r.log('callback rejected: bad token (no signal sent)', 'warn');
    return reply(res, 401, 'unauthorized', true);
  }
  return auth.target;
}

/** The body as JSON, or undefined once a 413 or 400 has been answered. */
async function jsonBody(
  r: Receiver,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  where: string,
): Promise<{ body: unknown } | undefined> {
  let raw: Buffer;
  try {
    raw = await readBody(req, r.limit);
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      r.log(`callback rejected: body over the ${r.limit}-byte limit; ${where}`, 'warn');
      return reply(res, 413, 'body too large', true);
    }
    throw err;
  }
  try {
    return { body: JSON.parse(raw.toString('utf8')) };
  } catch {
    r.log(`callback rejected: body is not JSON; ${where}`, 'warn');
    return reply(res, 400, 'body is not JSON');
  }
}

function relayOf(target: CallbackTarget, where: string, body: unknown): Relay {
  const { step, attempt, run } = target;
  const fields = extractCallbackFields(step, body);
  // The run (v2 URLs) goes with the signal: the workflow refuses a URL of another run.
  const signal: VendorCallbackSignal = { step, attempt, ...(run ? { run } : {}) };
  if (fields.taskId !== undefined) signal.taskId = fields.taskId;
  if (fields.status !== undefined) signal.status = fields.status;
  const what = `${where} taskId=${printable(signal.taskId ?? '-', 130)} status=${printable(signal.status ?? '-', 60)} shape=${fields.shape}`;
  return { workflowId: target.workflowId, key: target, signal, what };
}

/** False once an exact replay of a relayed callback has been answered 204 (its token goes back). */
function fresh(r: Receiver, res: http.ServerResponse, { key, signal, what }: Relay): boolean {
  if (r.guard.remember(key, signal.taskId, signal.status)) return true;
  logRefusal(r, key, `callback dropped, a replay of one already relayed (204): ${what}`);
  reply(res, 204);
  return false;
}

/** Refusals before the read are logged once per reason, then every 100th: a flood must not flood the log. */
function logEarly(r: Receiver, reason: string, line: string): void {
  const n = (r.refusals.get(reason) ?? 0) + 1;
  r.refusals.set(reason, n);
  if (n === 1 || n % 100 === 0) r.log(n === 1 ? line : `${line} (${n} such refusals so far)`, 'warn');
}

/**
 * What the path and headers alone decide, before a byte of the body is read: a closed run
 * chain (410), a declared body over the limit (413), an empty token bucket (429). The
 * connection is closed with the answer, so an unread body is never buffered.
 */
function refusedUnread(
  r: Receiver,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: CallbackTarget,
  where: string,
): boolean {
  if (r.verdicts.chainClosed(target)) {
    logEarly(r, 'closed', `callback for a run chain known to be closed (410, body unread): ${where}`);
    reply(res, 410, 'workflow not found or closed', true);
    return true;
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > r.limit) {
    logEarly(r, 'size', `callback rejected: body of ${declared} bytes over the ${r.limit}-byte limit (413): ${where}`);
    reply(res, 413, 'body too large', true);
    return true;
  }
  const taken = r.guard.take(target);
  if (taken.ok) return false;
  logRefusal(
    r,
    target,
    `callback refused, over ${r.limits.burst} at once or one per ${r.limits.refillMs} ms for this URL (429, body unread): ${where}`,
  );
  reply(res, 429, 'too many callbacks for this URL', true, { 'retry-after': String(taken.retryAfterS) });
  return true;
}

/** The body in one of the `maxReading` places, or undefined once answered (503 when none is free). */
async function readInTurn(
  r: Receiver,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  where: string,
): Promise<{ body: unknown } | undefined> {
  if (r.reading.now >= r.reading.max) {
    logEarly(r, 'reading', `callback refused, ${r.reading.max} bodies already being read (503, body unread): ${where}`);
    return reply(res, 503, 'too many callbacks being read', true, { 'retry-after': '1' });
  }
  r.reading.now++;
  try {
    return await jsonBody(r, req, res, where);
  } finally {
    r.reading.now--;
  }
}

/** How a callback is answered: the status, an error message, headers. */
interface Answer {
  status: number;
  message?: string;
  headers?: http.OutgoingHttpHeaders;
}

const NO_CONTENT: Answer = { status: 204 };

function send(res: http.ServerResponse, a: Answer): void {
  reply(res, a.status, a.message, false, a.headers);
}

/** A verdict that says "do not signal": its answer, logged. */
function notSignalled(r: Receiver, verdict: CallbackVerdict, what: string, remembered: boolean): Answer {
  if (verdict === 'limit') {
    r.log(`callback refused: the stage takes no more callbacks for this step (429): ${what}`, 'warn');
    const message = 'the workflow takes no more callbacks for this step';
    return { status: 429, message, headers: { 'retry-after': String(STAGE_LIMIT_RETRY_AFTER_S) } };
  }
  const by = remembered ? 'as the stage said before' : 'the stage calls it';
  r.log(`callback not signalled, ${by} ${verdict} (204): ${what}`);
  return NO_CONTENT;
}

/**
 * The workflow is unknown or its latest run is closed: no run of the URL's chain is open
 * (a workflow id has one open run at most), so later callbacks for the chain are refused
 * before their body is read (verdicts.ts, `closeChain`).
 */
function gone(r: Receiver, { key, signal, what }: Relay): Answer {
  r.guard.forget(key, signal.taskId, signal.status);
  r.verdicts.closeChain(key);
  r.log(`callback for a workflow that is unknown or closed (410): ${what}`);
  return { status: 410, message: 'workflow not found or closed' };
}

/** The stage's verdict decides; news is signalled. */
async function judge(r: Receiver, relay: Relay): Promise<Answer> {
  const { workflowId, key, signal, what } = relay;
  const verdict = await askStage(r, workflowId, signal);
  if (verdict === 'gone') return gone(r, relay);
  if (verdict === 'unknown') return signalStage(r, relay);
  // The stage's limit may lift: the vendor's retry of this callback is judged afresh, not dropped as a replay.
  if (verdict === 'limit') r.guard.forget(key, signal.taskId, signal.status);
  r.verdicts.learn(key, signal.taskId, verdict);
  return verdict === 'new' ? signalStage(r, relay) : notSignalled(r, verdict, what, false);
}

async function signalStage(r: Receiver, { workflowId, key, signal, what }: Relay): Promise<Answer> {
  try {
    await r.client.workflow.withDeadline(Date.now() + r.signalTimeoutMs, () =>
      r.client.workflow.getHandle(workflowId).signal(vendorCallbackSignal, signal),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return gone(r, { workflowId, key, signal, what });
    r.guard.forget(key, signal.taskId, signal.status);
    const reason = err instanceof Error ? err.name : 'error';
    r.log(
      `callback not delivered, signalling ${r.temporal} failed (${reason}; 503, the vendor may retry): ${what}`,
      'error',
    );
    return { status: 503, message: 'temporarily unavailable' };
  }
  r.log(`callback signalled: ${what}`);
  return NO_CONTENT;
}

/** After a 202 the vendor will not retry: a failed signal is tried again here, then given up (the stage still polls). */
const SIGNAL_RETRIES_AFTER_202_MS = [1_000, 5_000];

async function relayAfter202(r: Receiver, relay: Relay, judged: Promise<Answer>): Promise<void> {
  let answer = await judged;
  for (const delayMs of SIGNAL_RETRIES_AFTER_202_MS) {
    if (answer.status !== 503) return;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    answer = await signalStage(r, relay);
  }
  if (answer.status === 503) r.log(`callback given up after its 202; the stage keeps polling: ${relay.what}`, 'error');
}

/**
 * A remembered verdict answers at once. Otherwise the callback is judged and signalled in
 * its lane, and the vendor gets that answer, or 202 at answerWithinMs while it goes on.
 */
async function relayInTime(r: Receiver, res: http.ServerResponse, relay: Relay): Promise<void> {
  const { key, signal, what } = relay;
  const remembered = r.verdicts.recall(key, signal.taskId, signal.status);
  if (remembered) return send(res, notSignalled(r, remembered, what, true));
  const judged = r.lanes.take(() => judge(r, relay));
  if (!judged) {
    r.guard.forget(key, signal.taskId, signal.status);
    r.log(
      `callback refused, ${r.lanes.queued} already wait to be relayed (503, the vendor may retry): ${what}`,
      'warn',
    );
    return reply(res, 503, 'too many callbacks waiting');
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), r.answerWithinMs)));
  const answer = await Promise.race([judged, late]);
  clearTimeout(timer);
  if (answer) return send(res, answer);
  reply(res, 202);
  await relayAfter202(r, relay, judged);
}

async function handle(r: Receiver, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const target = authorised(r, req, res);
  if (!target) return;
  const { workflowId, step, attempt, run } = target;
  const where = `workflowId=${printable(workflowId)} step=${printable(step)} attempt=${attempt}${run ? ` run=${run}` : ''}`;
  if (refusedUnread(r, req, res, target, where)) return;
  const read = await readInTurn(r, req, res, where);
  if (!read) return;
  const relay = relayOf(target, where, read.body);
  if (fresh(r, res, relay)) await relayInTime(r, res, relay);
}

export async function startCallbackReceiver(opts: CallbackReceiverOptions): Promise<CallbackReceiver> {
  if (!opts.secret) throw new TypeError('startCallbackReceiver: secret must not be empty');
  const r = receiverOf(opts);
  const host = opts.host ?? '0.0.0.0';
  const listener = await startHttpServer(
    (req, res) => {
      handle(r, req, res).catch((err: unknown) => {
        r.log(`callback receiver error: ${err instanceof Error ? err.name : 'error'}`, 'error');
        reply(res, 500, 'internal error', true);
      });
    },
    // Bound slow or stuck clients and their number; a callback is small. In-flight requests get a moment at close.
    {
      port: opts.port,
      host,
      timeouts: { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 5_000, checkEveryMs: 1_000 },
      maxConnections: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      // A flood's burst of connections must not crowd the vendor's SYN out of the accept queue.
      backlog: 4_096,
    },
  );
  return { url: localUrl(host, listener.port), port: listener.port, close: listener.close };
}
