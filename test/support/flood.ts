/**
 * A connection flood against an HTTP listener, from raw sockets (a flood does not wait for
 * a well-behaved client): body senders that each keep one connection busy with a 1 MiB POST,
 * and slow-header clients that send a header line every few seconds and never finish.
 * Each connection that ends is opened again after `pauseMs`, until stop().
 */
import net from 'node:net';

export interface FloodOptions {
  /** The request path every connection POSTs to (a callback URL's path). */
  path: string;
  host: string;
  port: number;
  /** Connections sending bodies at once. */
  bodies: number;
  /** Connections trickling headers at once. */
  slowHeaders: number;
  /** Body size; half the senders declare it, half send it chunked. */
  bodyBytes: number;
  /** Between a connection's end and the next one in its place. */
  pauseMs: number;
  /** Between two header lines of a slow client. */
  headerEveryMs: number;
}

export interface Flood {
  /** Answers seen by status ('closed' when the connection ended without one). */
  answers: Map<string, number>;
  /** Connections opened in all. */
  opened: number;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One connection: `send` writes to it; resolves with the status line's code, or 'closed'. */
function connection(o: FloodOptions, send: (s: net.Socket) => void, live: Set<net.Socket>): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(o.port, o.host);
    live.add(socket);
    let status: string | undefined;
    socket.on('connect', () => send(socket));
    socket.on('data', (d: Buffer) => {
      status ??= /^HTTP\/1\.1 (\d{3})/.exec(d.toString('latin1', 0, 16))?.[1];
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      live.delete(socket);
      resolve(status ?? 'closed');
    });
  });
}

function bodySender(o: FloodOptions, body: Buffer, chunked: boolean): (s: net.Socket) => void {
  const framing = chunked
    ? `transfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`
    : `content-length: ${body.length}\r\n\r\n`;
  const head = `POST ${o.path} HTTP/1.1\r\nhost: ${o.host}\r\ncontent-type: application/json\r\nconnection: close\r\n${framing}`;
  return (s) => {
    s.write(head);
    s.write(body);
    s.end(chunked ? '\r\n0\r\n\r\n' : '');
  };
}

function slowSender(o: FloodOptions, stopped: () => boolean): (s: net.Socket) => void {
  return (s) => {
    s.write(`POST ${o.path} HTTP/1.1\r\nhost: ${o.host}\r\n`);
    let n = 0;
    const tick = setInterval(() => {
      if (stopped() || s.destroyed) return clearInterval(tick);
      s.write(`x-slow-${n++}: y\r\n`);
    }, o.headerEveryMs);
    s.on('close', () => clearInterval(tick));
  };
}

export function startFlood(o: FloodOptions): Flood {
  const live = new Set<net.Socket>();
  const answers = new Map<string, number>();
  let stopped = false;
  const flood: Flood = { answers, opened: 0, stop: () => Promise.resolve() };
  const body = Buffer.alloc(o.bodyBytes, 'x');
  const loop = async (send: (s: net.Socket) => void): Promise<void> => {
    while (!stopped) {
      flood.opened++;
      const status = await connection(o, send, live);
      answers.set(status, (answers.get(status) ?? 0) + 1);
      await sleep(o.pauseMs);
    }
  };
  const loops = [
    ...Array.from({ length: o.bodies }, (_, i) => loop(bodySender(o, body, i % 2 === 1))),
    ...Array.from({ length: o.slowHeaders }, () => loop(slowSender(o, () => stopped))),
  ];
  flood.stop = async () => {
    stopped = true;
    for (const s of live) s.destroy();
    await Promise.all(loops);
  };
  return flood;
}
