/** The HTTP listener the callback receiver, the archive server and the codec server share. */
import http from 'node:http';
import { localUrl, startHttpServer, type HttpListener } from '../../src/config/http-server';

const HOST = '127.0.0.1';
const open: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function started(handler: http.RequestListener, opts: Partial<Parameters<typeof startHttpServer>[1]> = {}) {
  const listener = await startHttpServer(handler, { port: 0, host: HOST, ...opts });
  open.push(listener);
  return listener;
}

/**
 * A handler that holds every request unanswered and says when one has reached it: a test closes
 * the server only once its request is in flight (a fixed wait lost that race under CI load).
 */
function held() {
  let arrive: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const at: { res?: http.ServerResponse } = {};
  const handler: http.RequestListener = (_req, res) => {
    at.res = res;
    arrive();
  };
  return { handler, arrived, at };
}

/** A GET on a connection of its own, its answer read whole; or the error code that ended it. */
function get(port: number): Promise<{ status: number; body: string } | { code: string }> {
  const failed = (err: NodeJS.ErrnoException) => ({ code: err.code ?? err.message });
  return new Promise((resolve) => {
    http
      .get({ host: HOST, port, path: '/', agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (err) => resolve(failed(err)));
      })
      .on('error', (err) => resolve(failed(err)));
  });
}

test('listens on the port the OS picks and answers with the handler', async () => {
  const listener = await started((_req, res) => res.end('hello'));
  expect(listener.port).toBeGreaterThan(0);
  expect(await get(listener.port)).toEqual({ status: 200, body: 'hello' });
});

test('sets the timeouts it is given and leaves the others at their defaults', async () => {
  let server: http.Server | undefined;
  const listener = await started(
    (req, res) => {
      server = (req.socket as unknown as { server: http.Server }).server;
      res.end();
    },
    { timeouts: { headersMs: 1_234, requestMs: 0 } },
  );
  await get(listener.port);
  const defaults = http.createServer();
  expect([server?.headersTimeout, server?.requestTimeout, server?.keepAliveTimeout]).toEqual([
    1_234,
    0,
    defaults.keepAliveTimeout,
  ]);
});

test('rejects when the port cannot be bound', async () => {
  const first = await started((_req, res) => res.end());
  await expect(startHttpServer((_req, res) => res.end(), { port: first.port, host: HOST })).rejects.toMatchObject({
    code: 'EADDRINUSE',
  });
});

test('close lets a request in flight finish within the grace, and is the same promise each time', async () => {
  const h = held();
  const listener = await started(h.handler, { closeGraceMs: 5_000 });
  const answer = get(listener.port);
  await h.arrived;
  const closing = listener.close();
  expect(listener.close()).toBe(closing);
  h.at.res?.end('late');
  expect(await answer).toEqual({ status: 200, body: 'late' });
  await closing;
  expect(await get(listener.port)).toEqual({ code: 'ECONNREFUSED' });
});

test('close drops a request still in flight when the grace ends', async () => {
  const h = held();
  const listener = await started(h.handler, { closeGraceMs: 100 });
  const answer = get(listener.port);
  await h.arrived;
  const closed = listener.close();
  expect(await answer).toEqual({ code: 'ECONNRESET' });
  await closed;
});

test('close with no grace drops a request in flight at once', async () => {
  const h = held();
  const listener = await started(h.handler, { closeGraceMs: 0 });
  const answer = get(listener.port);
  await h.arrived;
  await listener.close();
  expect(await answer).toEqual({ code: 'ECONNRESET' });
});

test('localUrl names every-interface binds as loopback and brackets IPv6', () => {
  expect(localUrl('0.0.0.0', 80)).toBe('http://127.0.0.1:80');
  expect(localUrl('::', 80)).toBe('http://127.0.0.1:80');
  expect(localUrl('::1', 80)).toBe('http://[::1]:80');
  expect(localUrl('127.0.0.2', 80)).toBe('http://127.0.0.2:80');
});
