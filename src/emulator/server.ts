/**
 * HTTP front: parses a request, routes it to its interface, wraps vendor endpoints in
 * fault injection, sends the Reply and logs it. Fault order per call:
 *   resetBeforeCreate → rateLimit429 → upstream502 → (handler runs) →
 *   resetAfterCreate | error500AfterCreate → delayAfterCreate.
 * "After" faults fire only on a 2xx answer, i.e. when the handler's work is done; so do
 * task faults (task-faults.ts), rolled for the task a create just made. Error bodies take
 * the dialect's shape (dialect.ts) just before sending.
 */
import { extraReply } from './extra-routes';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { handleAssetManagement } from './assets';
import { iso } from './clock';
import type { EmulatorContext } from './context';
import { checkControlAccess, type ControlAccess } from './control-access';
import { bump } from './counters';
import { callFailedCode, dialectError } from './dialect';
import { serveDownload } from './downloads';
import { createErase, getErase } from './erase';
import { faultReply, simpleError, type Interface } from './errors';
import { ASSET_ACTIONS, type EndpointKey, type FaultKind } from './faults';
import { createGeneration, getGeneration } from './generation';
import { header, readBody, type EmuRequest, type Reply } from './http';
import { newId } from './ids';
import { handleInspection, INSPECTION_PREFIX, type Controls } from './inspection';
import type { RequestLog } from './request-log';
import { getReview, submitReview } from './review';
import { applyTaskFaults } from './task-faults';

/** A delayAfterCreate without ms holds the answer this long: past any sane client timeout. */
export const DEFAULT_HOLD_MS = 30_000;

interface Route {
  key?: EndpointKey;
  iface: Interface;
  run: () => Reply | Promise<Reply>;
}

/** Entry points the spec names by path only (4.6): answered, but not emulated. */
const NAMED_ONLY = [
  /^\/v1\/video\/generations(\/[^/]+)?$/,
  /^\/kling\/v1\/videos\/(text2video|image2video|omni-video)(\/[^/]+)?$/,
  /^\/vidu\/ent\/v2\/text2video$/,
  /^\/v1\/videos(\/[^/]+)?$/,
  /^\/v1\/(chat\/completions|responses|messages)$/,
  /^\/v1beta\/models\/[^/]+$/,
  /^\/v1\/images\/(generations|edits)$/,
  /^\/v1\/aigc-images\/generations(\/[^/]+)?$/,
];

function route(ctx: EmulatorContext, req: EmuRequest): Route | Reply {
  const { method, path } = req;
  const one = (pattern: RegExp): string | undefined => {
    const m = pattern.exec(path);
    if (!m) return undefined;
    try {
      return decodeURIComponent(m[1]);
    } catch {
      return m[1]; // malformed %-escape: look the raw id up, which finds nothing
    }
  };
  const allow = (want: string[], r: Route): Route | Reply =>
    want.includes(method) ? r : simpleError(405, `${method} is not allowed on ${path}; use ${want.join(' or ')}`);

  if (path === '/v1/task/create') {
    return allow(['POST'], { key: 'generation.create', iface: 'generation', run: () => createGeneration(ctx, req) });
  }
  let id = one(/^\/v1\/task\/get\/([^/]+)$/);
  if (id)
    return allow(['GET'], { key: 'generation.get', iface: 'generation', run: () => getGeneration(ctx, req, id!) });
  const word = ctx.pathWord; // the vendor word the spec writes as `svc`
  if (path === `/api/v1/${word}-tools/${word}-erase-video-subtitle-pro`) {
    return allow(['POST'], { key: 'erase.create', iface: 'erase', run: () => createErase(ctx, req) });
  }
  id = path.startsWith(`/api/v1/${word}-tasks/`) ? one(/^\/api\/v1\/[^/]+-tasks\/([^/]+)$/) : undefined;
  if (id) return allow(['GET'], { key: 'erase.get', iface: 'erase', run: () => getErase(ctx, req, id!) });
  if (path === '/api/asset-management') {
    const action = req.query.get('Action') ?? '';
    const key = (ASSET_ACTIONS as readonly string[]).includes(action) ? (`assets.${action}` as EndpointKey) : undefined;
    return { key, iface: 'assets', run: () => handleAssetManagement(ctx, req) };
  }
  if (path === '/api/asset/upload/sync') {
    return allow(['POST'], { key: 'review.sync', iface: 'review', run: () => submitReview(ctx, req, 'sync') });
  }
  if (path === '/api/asset/upload/async') {
    return allow(['POST'], { key: 'review.async', iface: 'review', run: () => submitReview(ctx, req, 'async') });
  }
  id = one(/^\/api\/task\/([^/]+)$/);
  if (id) return allow(['GET'], { key: 'review.get', iface: 'review', run: () => getReview(ctx, req, id) });
  if (path.startsWith('/media/')) {
    return allow(['GET', 'HEAD'], { key: 'media.get', iface: 'media', run: () => serveDownload(ctx, req) });
  }
  if (NAMED_ONLY.some((p) => p.test(path))) return simpleError(501, `${path} is named by the spec but not emulated`);
  return extraReply(ctx.extraRoutes, req, ctx.baseUrl, ctx.clock.now()) ?? noRoute();
}

/**
 * A path no interface serves gets a gateway's bare 404 (plain text), not an interface's
 * JSON error: that is how `reelflow doctor` tells a wrong path word or base URL from an
 * unknown task id, which the interface itself answers (docs/doctor.md).
 */
function noRoute(): Reply {
  return {
    status: 404,
    body: Buffer.from('404 page not found\n'),
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  };
}

export interface ServerDeps {
  ctx: EmulatorContext;
  log: RequestLog;
  controls: Controls;
  /** Moves due resources forward before a request reads them. */
  tick: () => void;
  /** Who may use /__emulator/ (control-access.ts). */
  access: ControlAccess;
}

export function createRequestListener(deps: ServerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (nodeReq, res) => {
    handle(deps, nodeReq, res).catch((err: unknown) => {
      if (nodeReq.destroyed || res.destroyed) return; // the client went away mid-request
      // An emulator bug: answer 500 rather than hang the client. Messages carry no secrets.
      process.stderr.write(
        `emulator: internal error on ${nodeReq.method} ${nodeReq.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      send(res, simpleError(500, 'emulator internal error'));
    });
  };
}

async function handle(deps: ServerDeps, nodeReq: IncomingMessage, res: ServerResponse): Promise<void> {
  const { ctx, log } = deps;
  const started = performance.now();
  const arrivedAt = iso(ctx.clock.now());
  const url = new URL(nodeReq.url ?? '/', 'http://emulator.invalid');
  const body = await readBody(nodeReq);
  if (body === 'too-large') return send(res, simpleError(413, 'request body is larger than 1 MiB'));
  const req: EmuRequest = {
    method: nodeReq.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: nodeReq.headers,
    body,
  };
  deps.tick();
  if (req.path.startsWith(INSPECTION_PREFIX)) {
    const refused = checkControlAccess(deps.access, req, nodeReq.socket.remoteAddress);
    return send(res, refused ?? handleInspection(deps.controls, req));
  }

  ctx.counters.requests += 1;
  const routed = route(ctx, req);
  const r: Route = 'status' in routed ? { iface: 'emulator', run: () => routed } : routed;
  const faults: string[] = [];
  const roll = (kind: FaultKind) => {
    const hit = r.key ? ctx.faults.roll(r.key, kind) : undefined;
    if (hit) faults.push(kind);
    return hit;
  };
  const record = (reply: Reply | undefined, status: number | 'reset') =>
    log.add({
      at: arrivedAt,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      endpoint: r.key,
      status,
      faults,
      durationMs: Math.round(performance.now() - started),
      action: reply?.meta?.action ?? (r.iface === 'assets' ? req.query.get('Action') || undefined : undefined),
      traceId: reply?.meta?.traceId ?? header(req, 'x-trace-id'),
      trackId: reply?.meta?.trackId ?? header(req, 'x-track-id'),
      principal: reply?.meta?.principal ?? callerLabel(ctx, req, r.iface),
      callbackUrl: reply?.meta?.callbackUrl,
      resourceId: reply?.meta?.resourceId,
    });
  const reset = (reply?: Reply) => {
    record(reply, 'reset');
    nodeReq.socket.destroy();
  };

  if (roll('resetBeforeCreate')) return reset();
  // Asset-management fault bodies carry a TrackId: the caller's, or a fresh one.
  const trackId = header(req, 'x-track-id') ?? newId.trace();
  let reply: Reply;
  const limited = roll('rateLimit429');
  if (limited) reply = faultReply(r.iface, 'rateLimit429', trackId, limited.retryAfterSeconds ?? 1);
  else if (roll('upstream502'))
    reply = faultReply(r.iface, 'upstream502', trackId, 1, callFailedCode(ctx.dialect, ctx.pathWord));
  else reply = await r.run();

  if (reply.status >= 200 && reply.status < 300) {
    if (r.key) applyTaskFaults(ctx, r.key, reply.meta?.resourceId, roll);
    if (roll('resetAfterCreate')) return reset(reply);
    if (roll('error500AfterCreate'))
      reply = { ...faultReply(r.iface, 'error500AfterCreate', trackId), meta: reply.meta };
    const hold = roll('delayAfterCreate');
    if (hold) await ctx.timers.sleep(hold.ms ?? DEFAULT_HOLD_MS);
  }
  if (reply.status === 429) bump(ctx.counters.rateLimited429, r.key ?? req.path);
  reply = dialectError(ctx.dialect, r.iface, reply, reply.meta?.action ?? (req.query.get('Action') || undefined));
  record(reply, reply.status);
  send(res, reply);
}

/** Who called, for a request answered before its handler ran (an injected fault): a label, never the credential. */
function callerLabel(ctx: EmulatorContext, req: EmuRequest, iface: Interface): string | undefined {
  const auth =
    iface === 'assets' || iface === 'review'
      ? ctx.principals.accessToken(req)
      : iface === 'generation' || iface === 'erase'
        ? ctx.principals.apiKey(req)
        : undefined;
  return auth?.ok ? auth.principal : undefined;
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return; // the client gave up while a fault held the answer
  const headers: Record<string, string> = { ...reply.headers };
  let payload: Buffer;
  if (Buffer.isBuffer(reply.body)) payload = reply.body;
  else if (reply.body === undefined) payload = Buffer.alloc(0);
  else {
    payload = Buffer.from(JSON.stringify(reply.body));
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  headers['content-length'] ??= String(payload.length);
  res.writeHead(reply.status, headers);
  res.end(payload);
}
