/**
 * The worker's own health listener (REELFLOW_HEALTH_BIND; docs/deploy.md, "Health probes"):
 * `GET /livez` answers 200 while the process serves HTTP at all; `GET /readyz` answers 200 only
 * when the start-up checks passed, the workflow bundle is loaded and every poller runs, else
 * 503 naming what is not yet (or no longer) so. A liveness probe restarts a wedged process; a
 * readiness probe holds a rollout until the new worker really polls. Nothing secret is shown.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { localUrl, startHttpServer } from '../config/http-server';

/** What readiness waits for; each is set by the worker process as it starts (./main.ts). */
export interface Readiness {
  /** 'pending' before the start-up checks ran, 'passed', or what failed (their titles). */
  checks: { state: 'pending' } | { state: 'passed' } | { state: 'failed'; failed: string };
  bundleLoaded: boolean;
  /** The pollers' states, undefined before the workers exist. */
  pollers?: () => { taskQueue: string; state: string }[];
}

export interface HealthServer {
  url: string;
  port: number;
  close: () => Promise<void>;
}

/** Why the worker is not ready, empty when it is. */
export function notReady(r: Readiness): string[] {
  const why: string[] = [];
  if (r.checks.state === 'pending') why.push('start-up checks not run yet');
  else if (r.checks.state === 'failed') why.push(`start-up checks failed: ${r.checks.failed}`);
  if (!r.bundleLoaded) why.push('workflow bundle not loaded yet');
  const pollers = r.pollers?.();
  if (!pollers) why.push('pollers not started yet');
  for (const p of pollers ?? []) if (p.state !== 'RUNNING') why.push(`poller on ${p.taskQueue}: ${p.state}`);
  return why;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function handler(readiness: Readiness) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, { error: 'GET only' });
    if (path === '/livez') return answer(res, 200, { status: 'live' });
    if (path !== '/readyz') return answer(res, 404, { error: 'GET /livez or /readyz' });
    const why = notReady(readiness);
    return why.length ? answer(res, 503, { status: 'not ready', why }) : answer(res, 200, { status: 'ready' });
  };
}

export async function startHealthServer(
  bind: { host: string; port: number },
  readiness: Readiness,
): Promise<HealthServer> {
  const listener = await startHttpServer(handler(readiness), {
    ...bind,
    timeouts: { headersMs: 5_000, requestMs: 5_000, keepAliveMs: 5_000 },
    closeGraceMs: 0,
  });
  return { url: localUrl(bind.host, listener.port), port: listener.port, close: listener.close };
}
