/**
 * The worker's archive server (src/workers/archive-server.ts) over real HTTP: the token
 * gates everything under /archive (before the path is even looked at), the path is
 * confined to three archive segments under the root (no `..`, encoded or not, no absolute
 * path, no symlink out), files stream with their Content-Length, and the token is never
 * logged. Raw requests (node:http) so that no client normalizes a `..` away first.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startArchiveServer, type ArchiveServer } from '../../src/workers/archive-server';
import { loadWorkerConfig, WorkerConfigError } from '../../src/workers/config';
import { until } from '../support/poll';

const TOKEN = 'archive-token-0123456789-abcdef';
const VIDEO = Buffer.from('not really an mp4, but bytes all the same '.repeat(1000));

let base: string;
let root: string;
let outside: string;
let server: ArchiveServer;
const logged: string[] = [];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request with the path exactly as written (no URL normalization). */
function raw(
  rawPath: string,
  opts: { token?: string | null; method?: string; authorization?: string; range?: string; port?: number } = {},
) {
  const token = opts.token === undefined ? TOKEN : opts.token;
  const headers: http.OutgoingHttpHeaders = opts.range !== undefined ? { range: opts.range } : {};
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  else if (token !== null) headers.authorization = `Bearer ${token}`;
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: opts.port ?? server.port, path: rawPath, method: opts.method ?? 'GET', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  base = mkdtempSync(path.join(os.tmpdir(), 'reelflow-archive-server-'));
  root = path.join(base, 'archive');
  outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'pipe-1', 'cgt-1'), { recursive: true });
  mkdirSync(path.join(root, '~a~2Fb', '_url-abc'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, 'pipe-1', 'cgt-1', 'generated.mp4'), VIDEO);
  writeFileSync(path.join(root, 'pipe-1', 'cgt-1', 'generated.mp4.part'), 'half');
  writeFileSync(path.join(root, '~a~2Fb', '_url-abc', 'erased.mp4'), 'erased');
  writeFileSync(path.join(root, 'top.mp4'), 'above the layout');
  writeFileSync(path.join(outside, 'secret.mp4'), 'outside the root');
  mkdirSync(path.join(outside, 'cgt-x'));
  writeFileSync(path.join(outside, 'cgt-x', 'generated.mp4'), 'outside the root');
  // Symlinks planted in the archive: a folder and a file pointing out of it.
  symlinkSync(outside, path.join(root, 'pipe-1', 'cgt-link'));
  symlinkSync(path.join(outside, 'cgt-x'), path.join(root, 'pipe-1', 'cgt-2'));
  symlinkSync(path.join(outside, 'secret.mp4'), path.join(root, 'pipe-1', 'cgt-1', 'link.mp4'));
  symlinkSync(outside, path.join(root, 'pipe-out'));
  server = await startArchiveServer({ root, token: TOKEN, host: '127.0.0.1', port: 0, log: (l) => logged.push(l) });
});
afterAll(() => server?.close());

test('the token is required, and checked before the path: no token, a wrong one, another scheme → 401', async () => {
  const file = '/archive/pipe-1/cgt-1/generated.mp4';
  for (const opts of [
    { token: null },
    { token: 'archive-token-0123456789-abcdeX' },
    { token: `${TOKEN}x` },
    { token: TOKEN.slice(0, -1) },
    { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` },
    { authorization: TOKEN },
  ]) {
    const a = await raw(file, opts);
    expect(a.status).toBe(401);
    expect(a.headers['www-authenticate']).toBe('Bearer');
    expect(a.body.toString()).not.toContain('not really');
  }
  // An unknown file and a traversal answer 401 too without the token: nothing is learnt about the disk.
  expect((await raw('/archive/pipe-1/cgt-1/nope.mp4', { token: null })).status).toBe(401);
  expect((await raw('/archive/../../etc/passwd', { token: 'wrong-token-but-long' })).status).toBe(401);
  expect((await raw('/archive', { token: null })).status).toBe(401);
});

test('a file is streamed whole with its Content-Length; HEAD gives the length only; GET /archive says the token is right', async () => {
  const a = await raw('/archive/pipe-1/cgt-1/generated.mp4');
  expect(a.status).toBe(200);
  expect(Number(a.headers['content-length'])).toBe(VIDEO.length);
  expect(a.headers['content-type']).toBe('video/mp4');
  expect(createHash('sha256').update(a.body).digest('hex')).toBe(createHash('sha256').update(VIDEO).digest('hex'));

  const head = await raw('/archive/pipe-1/cgt-1/generated.mp4', { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(Number(head.headers['content-length'])).toBe(VIDEO.length);
  expect(head.body.length).toBe(0);

  // Escaped ids (the archive's `~XX` segments, a URL-keyed task folder), percent-encoded or not.
  expect((await raw('/archive/~a~2Fb/_url-abc/erased.mp4')).body.toString()).toBe('erased');
  expect((await raw('/archive/%7Ea%7E2Fb/_url-abc/erased.mp4')).body.toString()).toBe('erased');

  expect((await raw('/archive')).status).toBe(204);
  expect((await raw('/archive/')).status).toBe(204);
  expect((await raw('/healthz', { token: null })).status).toBe(200);
  expect((await raw('/archive/pipe-1/cgt-1/generated.mp4', { method: 'POST' })).status).toBe(405);
  expect((await raw('/other')).status).toBe(404);
});

test('traversal, encoded or not, absolute paths and names off the layout → 400, nothing read', async () => {
  for (const p of [
    '/archive/../../etc/passwd',
    '/archive/pipe-1/cgt-1/../../../outside/secret.mp4',
    '/archive/%2e%2e/%2e%2e/secret.mp4',
    '/archive/pipe-1/%2e%2e/top.mp4',
    '/archive/pipe-1/cgt-1/..%2f..%2ftop.mp4',
    '/archive/pipe-1/cgt-1/%2e%2e%2F%2e%2e%2Ftop.mp4',
    '/archive/pipe-1/cgt-1/..%5c..%5ctop.mp4',
    '/archive/pipe-1/cgt-1/..\\..\\top.mp4',
    '/archive//etc/passwd',
    '/archive/%2Fetc/passwd/x',
    `/archive/${encodeURIComponent(path.join(outside, 'secret.mp4'))}/a/b`,
    '/archive/pipe-1/cgt-1/.hidden',
    '/archive/pipe-1/cgt-1/generated.mp4%00.txt',
    '/archive/pipe-1/cgt-1/generated.mp4.part',
    '/archive/pipe-1/cgt-1/%E0%A4%A',
    '/archive/top.mp4',
    '/archive/pipe-1/generated.mp4',
    '/archive/pipe-1/cgt-1/generated.mp4/x',
  ]) {
    const a = await raw(p);
    expect([p, a.status]).toEqual([p, 400]);
    expect(a.body.toString()).not.toMatch(/outside the root|above the layout|root:/);
  }
});

test('unknown files, and symlinks out of the root at any level → 404', async () => {
  for (const p of [
    '/archive/pipe-1/cgt-1/nope.mp4',
    '/archive/pipe-9/cgt-1/generated.mp4',
    '/archive/pipe-1/cgt-link/secret.mp4',
    '/archive/pipe-1/cgt-2/generated.mp4',
    '/archive/pipe-1/cgt-1/link.mp4',
    '/archive/pipe-out/cgt-x/generated.mp4',
  ]) {
    const a = await raw(p);
    expect([p, a.status]).toEqual([p, 404]);
    expect(a.body.toString()).not.toContain('outside the root');
  }
});

test('the root itself may be a symlink (a mounted volume): files under it are served', async () => {
  const linked = path.join(base, 'archive-link');
  symlinkSync(root, linked);
  const other = await startArchiveServer({ root: linked, token: TOKEN, host: '127.0.0.1', port: 0 });
  try {
    const res = await fetch(`${other.url}/archive/pipe-1/cgt-1/generated.mp4`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(VIDEO)).toBe(true);
  } finally {
    await other.close();
  }
});

test('the token never reaches the log', () => {
  expect(logged.length).toBeGreaterThan(10);
  expect(logged.join('\n')).not.toContain(TOKEN);
  expect(logged.join('\n')).not.toContain(TOKEN.slice(0, 12));
  expect(logged).toContain('archive request refused: missing or wrong token (401)');
});

test('Range: one byte range answers 206 with that part, so a download resumes; past the end 416', async () => {
  const file = '/archive/pipe-1/cgt-1/generated.mp4';
  const whole = await raw(file);
  expect(whole.headers['accept-ranges']).toBe('bytes');
  const cases: [string, number, number][] = [
    ['bytes=100-199', 100, 199],
    ['bytes=40000-', 40000, VIDEO.length - 1],
    ['bytes=-10', VIDEO.length - 10, VIDEO.length - 1],
    ['bytes=0-99999999', 0, VIDEO.length - 1],
  ];
  for (const [range, start, end] of cases) {
    const part = await raw(file, { range });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes ${start}-${end}/${VIDEO.length}`);
    expect(part.headers['content-length']).toBe(String(end - start + 1));
    expect(part.body.equals(VIDEO.subarray(start, end + 1))).toBe(true);
  }
  // A download cut at 1000 bytes, resumed from there, is the file.
  const resumed = Buffer.concat([whole.body.subarray(0, 1000), (await raw(file, { range: 'bytes=1000-' })).body]);
  expect(resumed.equals(VIDEO)).toBe(true);
  const past = await raw(file, { range: `bytes=${VIDEO.length}-` });
  expect(past.status).toBe(416);
  expect(past.headers['content-range']).toBe(`bytes */${VIDEO.length}`);
  // Several ranges, or another unit: the whole file, as HTTP allows.
  for (const range of ['bytes=0-1,5-6', 'items=0-1'])
    expect((await raw(file, { range })).body.equals(VIDEO)).toBe(true);
  // The token still comes first.
  expect((await raw(file, { range: 'bytes=0-1', token: null })).status).toBe(401);
});

test('connections are capped: past the cap a new one is closed before a byte is read', async () => {
  const capped = await startArchiveServer({ root, token: TOKEN, port: 0, maxConnections: 2 });
  const sockets = await Promise.all([0, 1].map(() => openSocket(capped.port)));
  try {
    await new Promise((r) => setTimeout(r, 100)); // the server has accepted both
    await expect(raw('/archive/pipe-1/cgt-1/generated.mp4', { port: capped.port })).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    sockets[0].destroy();
    await until('a slot is free again', async () =>
      (await raw('/archive/pipe-1/cgt-1/generated.mp4', { port: capped.port }).catch(() => undefined))?.status === 200
        ? true
        : undefined,
    );
  } finally {
    sockets.forEach((s) => s.destroy());
    await capped.close();
  }
});

test('listens on loopback unless told otherwise', async () => {
  const local = await startArchiveServer({ root, token: TOKEN, port: 0 });
  try {
    expect(local.url).toBe(`http://127.0.0.1:${local.port}`);
  } finally {
    await local.close();
  }
});

function openSocket(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

describe('configuration', () => {
  test('off without REELFLOW_ARCHIVE_TOKEN; on with it, default port 8090 on loopback; the token never shows', () => {
    expect(loadWorkerConfig({}, { cores: 2 }).archiveServer).toBeUndefined();
    const c = loadWorkerConfig({ REELFLOW_ARCHIVE_TOKEN: TOKEN }, { cores: 2 });
    expect(c.archiveServer).toEqual({ host: '127.0.0.1', port: 8090 });
    expect(c.archiveToken).toBe(TOKEN);
    expect(JSON.stringify(c)).not.toContain(TOKEN);
    expect(JSON.stringify({ ...c })).not.toContain(TOKEN);
    const set = { REELFLOW_ARCHIVE_TOKEN: TOKEN, REELFLOW_ARCHIVE_PORT: '0', REELFLOW_ARCHIVE_HOST: '0.0.0.0' };
    expect(loadWorkerConfig(set, { cores: 2 }).archiveServer).toEqual({ host: '0.0.0.0', port: 0 });
  });

  test.each([
    ['a short token', { REELFLOW_ARCHIVE_TOKEN: 'short-tok' }, 'REELFLOW_ARCHIVE_TOKEN', /at least 16/],
    ['a port without a token', { REELFLOW_ARCHIVE_PORT: '8090' }, 'REELFLOW_ARCHIVE_TOKEN', /is required when/],
    ['a bad port', { REELFLOW_ARCHIVE_TOKEN: TOKEN, REELFLOW_ARCHIVE_PORT: '70000' }, 'REELFLOW_ARCHIVE_PORT', /most/],
    [
      "the callback receiver's port",
      { REELFLOW_ARCHIVE_TOKEN: TOKEN, REELFLOW_CALLBACK_PORT: '8090', REELFLOW_CALLBACK_SECRET: TOKEN },
      'REELFLOW_ARCHIVE_PORT',
      /must differ from REELFLOW_CALLBACK_PORT/,
    ],
  ])('%s: the error names the variable, never the value', (_what, env, variable, message) => {
    let err: unknown;
    try {
      loadWorkerConfig(env, { cores: 2 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WorkerConfigError);
    expect((err as WorkerConfigError).variables).toEqual([variable]);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('short-tok');
    expect((err as Error).message).not.toContain(TOKEN);
  });

  test('the server refuses to start without a token', async () => {
    await expect(startArchiveServer({ root, token: '', port: 0 })).rejects.toThrow(/token must not be empty/);
  });
});
