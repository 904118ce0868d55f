/**
 * Local servers for tests, on loopback and a port the OS picks: an HTTP server that
 * records every request (a callback receiver, a webhook endpoint, an OTLP collector, a
 * vendor stand-in for the client's unit tests), a raw TCP server, and free ports.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  /** Path and query, as the request line had them. */
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body as text (JSON.parse it for a JSON body). */
  body: string;
}

export type Handler = (req: Recorded, res: http.ServerResponse) => void;

export interface LocalServer {
  /** http://host:port, without a trailing slash. */
  url: string;
  /** Every request so far, in arrival order (set length to 0 to forget them). */
  requests: Recorded[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Stops listening and ends open connections (keep-alive ones, trickling answers). */
  close: () => Promise<void>;
}

export interface ServerOptions {
  /** Default 127.0.0.1 (127.0.0.2 is loopback too, for tests of which hosts are allowed). */
  host?: string;
}

async function listen(server: net.Server, host: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

/** Starts counting and tracking connections, so that close() can end them. */
function track(server: net.Server) {
  const sockets = new Set<net.Socket>();
  const state = { connections: 0 };
  server.on('connection', (s) => {
    state.connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return { state, close };
}

/** Answers every request with `status` and no body. */
export function answer(status: number): Handler {
  return (_req, res) => res.writeHead(status).end();
}

/** Answers every request with `status` and a JSON body. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** Records every request once its body has arrived, then lets `handler` answer (or not); default 200. */
export async function startServer(handler: Handler = answer(200), opts: ServerOptions = {}): Promise<LocalServer> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      handler(rec, res);
    });
  });
  const { state, close } = track(server);
  const url = await listen(server, opts.host ?? '127.0.0.1');
  return {
    url,
    requests,
    get connections() {
      return state.connections;
    },
    close,
  };
}

/** A raw TCP server: `onSocket` decides what happens to each connection. */
export async function startTcpServer(onSocket: (s: net.Socket) => void): Promise<LocalServer> {
  const server = net.createServer(onSocket);
  const { state, close } = track(server);
  const url = await listen(server, '127.0.0.1');
  return {
    url,
    requests: [],
    get connections() {
      return state.connections;
    },
    close,
  };
}

/**
 * A port on `host` that was free a moment ago (taken from the OS, then released): for a
 * process the test starts to listen on, or, left alone, a port where connections are refused.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An address where nothing listens: connections to it are refused. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
