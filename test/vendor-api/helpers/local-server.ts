/** A tiny programmable HTTP server on 127.0.0.1 for unit tests of the vendor client. */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: Recorded, res: http.ServerResponse) => void;

export interface LocalServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

async function listen(server: net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: net.Server, sockets: Set<net.Socket>) {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

function track(server: net.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

/** Records every request, then lets `handler` answer (or not). */
export async function startServer(handler: Handler): Promise<LocalServer> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(rec);
      handler(rec, res);
    });
  });
  const sockets = track(server);
  return { url: await listen(server), requests, close: closer(server, sockets) };
}

/** Answers every request with `status` and a JSON body. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** A raw TCP server: `onSocket` decides what happens to each connection. */
export async function startTcpServer(onSocket: (s: net.Socket) => void): Promise<LocalServer> {
  const server = net.createServer(onSocket);
  const sockets = track(server);
  return { url: await listen(server), requests: [], close: closer(server, sockets) };
}

/** An address where nothing listens (a port that was just freed). */
export async function closedPortUrl(): Promise<string> {
  const s = net.createServer();
  const url = await listen(s);
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return url;
}
