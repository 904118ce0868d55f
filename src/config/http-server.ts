/**
 * How reelflow's own HTTP listeners (the callback receiver, the archive server, the codec
 * server) are made: the server with its timeouts, listen (a port that cannot be bound rejects,
 * so the caller's start fails), and a close that lets requests in flight finish for a moment.
 * What each one answers stays in its own module; what every listener needs (a limit on
 * connections, how a failed listen is reported) goes here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The server's timeouts, in ms; one left out keeps Node's default, 0 turns it off. */
export interface ServerTimeouts {
  /** Until the request's headers are in (Node's `headersTimeout`). */
  headersMs?: number;
  /** Until the whole request is in (Node's `requestTimeout`). */
  requestMs?: number;
  /** An idle keep-alive connection's life (Node's `keepAliveTimeout`). */
  keepAliveMs?: number;
  /**
   * How often the header and request deadlines are enforced (Node's
   * `connectionsCheckingInterval`, default 30 s): a slow-header client lives until the next
   * check, so a short deadline needs a short interval.
   */
  checkEveryMs?: number;
}

export interface HttpServerOptions {
  port: number;
  host: string;
  timeouts?: ServerTimeouts;
  /**
   * Open connections at most (Node's `maxConnections`); past it a new connection is closed
   * at once, before a byte is read. Each one costs a file descriptor and a parser, so a flood
   * of idle or slow connections is bounded here. Default: no cap.
   */
  maxConnections?: number;
  /**
   * Connections the kernel may hold unaccepted (listen's backlog; Node's default 511, capped
   * by net.core.somaxconn). A burst past it drops SYNs, and a client then waits its SYN retry.
   */
  backlog?: number;
  /** How long close() lets requests in flight finish before it drops their connections (default 2 s; 0: at once). */
  closeGraceMs?: number;
}

/** A server that listens. */
export interface HttpListener {
  /** The port bound (the one the OS picked for port 0). */
  port: number;
  /** Stops listening and ends the connections; every call returns the same promise. */
  close: () => Promise<void>;
}

const DEFAULT_CLOSE_GRACE_MS = 2_000;

function withTimeouts(server: http.Server, { headersMs, requestMs, keepAliveMs }: ServerTimeouts): http.Server {
  if (headersMs !== undefined) server.headersTimeout = headersMs;
  if (requestMs !== undefined) server.requestTimeout = requestMs;
  if (keepAliveMs !== undefined) server.keepAliveTimeout = keepAliveMs;
  return server;
}

function listen(server: http.Server, { port, host, backlog }: HttpServerOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ...(backlog === undefined ? {} : { backlog }) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closer(server: http.Server, graceMs: number): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      if (graceMs <= 0) {
        server.closeAllConnections();
        return;
      }
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), graceMs).unref();
    }));
}

/** Creates the server for `handler`, sets its timeouts and listens; rejects when it cannot bind. */
export async function startHttpServer(handler: http.RequestListener, opts: HttpServerOptions): Promise<HttpListener> {
  const { checkEveryMs } = opts.timeouts ?? {};
  const created = http.createServer(
    checkEveryMs === undefined ? {} : { connectionsCheckingInterval: checkEveryMs },
    handler,
  );
  const server = withTimeouts(created, opts.timeouts ?? {});
  if (opts.maxConnections !== undefined) server.maxConnections = opts.maxConnections;
  await listen(server, opts);
  const { port } = server.address() as AddressInfo;
  return { port, close: closer(server, opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS) };
}

/** The URL a local client reaches a listener on: every interface (0.0.0.0, ::) as 127.0.0.1, IPv6 in brackets. */
export function localUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** A listener that could not bind, naming the variable that chose its address. Never retried. */
export class ListenError extends Error {
  constructor(variable: string, where: string, code: string) {
    const why = code === 'EADDRINUSE' ? 'the port is taken' : code === 'EACCES' ? 'not permitted' : code;
    super(`${variable}: cannot listen on ${where} (${code === why ? code : `${code}: ${why}`})`);
    this.name = 'ListenError';
  }
}

/**
 * Runs `start` (which listens); a failed listen becomes a ListenError naming `variable`, so the
 * process stops at once with the setting to fix, not a stack trace. Other errors pass as they are.
 */
export async function listenNamed<T>(variable: string, where: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e?.syscall === 'listen' || e?.code === 'EADDRINUSE') throw new ListenError(variable, where, e.code ?? 'error');
    throw err;
  }
}
