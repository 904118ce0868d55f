/**
 * archiveOutput in the SDK's activity test harness (MockActivityEnvironment) against a
 * local node:http server.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createArchiveActivities, safeSegment, type ArchiveInput } from '../../src/activities/archive';
import type { ArchivedFile } from '../../src/workflows/messages';

const payload = randomBytes(256 * 1024 + 17);
const payloadSha = createHash('sha256').update(payload).digest('hex');
const SIG = 'X-Signature=topsecretsig123&Expires=999';

let server: http.Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push(url.pathname);
    switch (url.pathname) {
      case '/video.mp4':
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': payload.length });
        res.end(payload);
        return;
      case '/chunked.mp4': // no content-length
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write(payload.subarray(0, 1000));
        setTimeout(() => res.end(payload.subarray(1000)), 20);
        return;
      case '/gone.mp4':
        res.writeHead(404, { 'content-type': 'text/plain' }).end('NoSuchKey');
        return;
      case '/busy.mp4':
        res.writeHead(503).end();
        return;
      case '/bad-request.mp4':
        res.writeHead(400).end();
        return;
      case '/redirect.mp4':
        res.writeHead(302, { location: `/video.mp4?${SIG}` }).end();
        return;
      case '/reset.mp4': // promises the whole file, sends half, then resets the connection
        res.writeHead(200, { 'content-length': payload.length });
        res.write(payload.subarray(0, payload.length / 2), () => setTimeout(() => res.socket?.resetAndDestroy(), 20));
        return;
      case '/slow.mp4': // a trickle that never ends unless the client goes away
        res.writeHead(200, { 'content-length': payload.length });
        res.write(payload.subarray(0, 1024));
        const t = setInterval(() => res.write(Buffer.alloc(16)), 50);
        res.on('close', () => clearInterval(t));
        return;
      default:
        res.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function setup() {
  const archiveRoot = mkdtempSync(path.join(os.tmpdir(), 'reelflow-archive-'));
  // Failures are the point of most tests here: keep the harness's WARN logs out of the output.
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const { archiveOutput } = createArchiveActivities({ archiveRoot, heartbeatIntervalMs: 0 });
  const run = (input: ArchiveInput): Promise<ArchivedFile> => env.run(archiveOutput, input);
  return { archiveRoot, env, beats, run };
}

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

test('downloads with a correct sha256, writes a sha256sum file, leaves no .part', async () => {
  const { archiveRoot, beats, run } = setup();
  const url = `${base}/video.mp4?${SIG}`;
  const out = await run({ pipelineId: 'pipe-1', name: 'generation.mp4', url, expectedBytes: payload.length });
  expect(out).toEqual({
    name: 'generation.mp4',
    path: path.join(archiveRoot, 'pipe-1', 'generation.mp4'),
    sha256: payloadSha,
    bytes: payload.length,
    sourceUrl: `${base}/video.mp4`, // no signed query in workflow history
  });
  expect(readFileSync(out.path).equals(payload)).toBe(true);
  expect(readFileSync(`${out.path}.sha256`, 'utf8')).toBe(`${payloadSha}  generation.mp4\n`);
  expect(readdirSync(path.dirname(out.path)).sort()).toEqual(['generation.mp4', 'generation.mp4.sha256']);
  expect(beats.length).toBeGreaterThan(0);
  expect(beats).toContainEqual(expect.objectContaining({ phase: 'download', total: payload.length }));
});

test('a body without Content-Length and a redirect are both archived', async () => {
  const { run } = setup();
  const a = await run({ pipelineId: 'p', name: 'a.mp4', url: `${base}/chunked.mp4` });
  expect(a.sha256).toBe(payloadSha);
  const b = await run({ pipelineId: 'p', name: 'b.mp4', url: `${base}/redirect.mp4?${SIG}` });
  expect(b.sha256).toBe(payloadSha);
});

test('a retry of a finished archive makes no HTTP request; a damaged file is fetched again', async () => {
  const { run } = setup();
  const input = { pipelineId: 'pipe-2', name: 'erase.mp4', url: `${base}/video.mp4?${SIG}` };
  const first = await run(input);
  const before = hits.length;
  const second = await run(input);
  expect(second).toEqual(first);
  expect(hits.length).toBe(before);

  writeFileSync(first.path, Buffer.from('corrupted'));
  const third = await run(input);
  expect(hits.length).toBe(before + 1);
  expect(third.sha256).toBe(payloadSha);
  expect(readFileSync(third.path).equals(payload)).toBe(true);
});

test('404 is non-retryable "URL expired or gone", names the file and status, never the query', async () => {
  const { archiveRoot, run } = setup();
  const f = await failureOf(run({ pipelineId: 'p', name: 'generation.mp4', url: `${base}/gone.mp4?${SIG}` }));
  expect(f.type).toBe('ArchiveUrlGone');
  expect(f.nonRetryable).toBe(true);
  expect(f.message).toContain('generation.mp4');
  expect(f.message).toContain('404');
  expect(f.message).toMatch(/expired or gone/);
  expect(f.message).toContain(`${base}/gone.mp4`);
  expect(JSON.stringify({ m: f.message, d: f.details })).not.toMatch(/topsecretsig|Signature|Expires/);
  expect(existsSync(path.join(archiveRoot, 'p', 'generation.mp4'))).toBe(false);
});

test('5xx is retryable; another 4xx is not', async () => {
  const { run } = setup();
  const busy = await failureOf(run({ pipelineId: 'p', name: 'x', url: `${base}/busy.mp4?${SIG}` }));
  expect(busy.type).toBe('ArchiveHttpError');
  expect(busy.nonRetryable).toBe(false);
  const bad = await failureOf(run({ pipelineId: 'p', name: 'x', url: `${base}/bad-request.mp4` }));
  expect(bad.nonRetryable).toBe(true);
});

test('a connection reset mid-body fails retryably and leaves neither a final file nor a .part', async () => {
  const { archiveRoot, run } = setup();
  const f = await failureOf(run({ pipelineId: 'p', name: 'half.mp4', url: `${base}/reset.mp4?${SIG}` }));
  expect(f.type).toBe('ArchiveNetworkError');
  expect(f.nonRetryable).toBe(false);
  expect(f.message).not.toMatch(/topsecretsig/);
  expect(readdirSync(path.join(archiveRoot, 'p'))).toEqual([]);
});

test('a size other than expectedBytes is refused and not kept', async () => {
  const { archiveRoot, run } = setup();
  const f = await failureOf(run({ pipelineId: 'p', name: 'v.mp4', url: `${base}/video.mp4`, expectedBytes: 10 }));
  expect(f.type).toBe('ArchiveSizeMismatch');
  expect(readdirSync(path.join(archiveRoot, 'p'))).toEqual([]);
});

test('cancellation aborts the download and cleans up', async () => {
  const { archiveRoot, env, run } = setup();
  const p = run({ pipelineId: 'p', name: 'slow.mp4', url: `${base}/slow.mp4` });
  await new Promise((r) => setTimeout(r, 200));
  env.cancel();
  await expect(p).rejects.toBeInstanceOf(CancelledFailure);
  expect(readdirSync(path.join(archiveRoot, 'p'))).toEqual([]);
});

test('names cannot escape the archive root', async () => {
  const { archiveRoot, run } = setup();
  const out = await run({ pipelineId: '../../etc', name: '../passwd', url: `${base}/video.mp4` });
  expect(path.dirname(path.dirname(out.path))).toBe(archiveRoot);
  expect(out.name).toBe('../passwd');
  for (const s of ['..', '.', '', '.hidden', 'a/b', 'a\\b', '/abs', 'ü.mp4', 'x'.repeat(500)]) {
    const seg = safeSegment(s);
    expect(seg).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
    expect(seg).not.toContain('..');
    expect(seg.length).toBeLessThanOrEqual(120);
  }
  expect(safeSegment('generation.mp4')).toBe('generation.mp4');
  expect(safeSegment('a/b')).not.toBe(safeSegment('a_b'));
});
