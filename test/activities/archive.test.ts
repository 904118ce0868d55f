/**
 * archiveOutput in the SDK's activity test harness (MockActivityEnvironment) against local
 * HTTP servers (test/support/http-server.ts). Every server listens on 127.0.0.0/8 only: the refusal tests prove that
 * loopback is refused (no connection reaches the server) when the opt-in is off.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import type { LookupFunction } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Info } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  createArchiveActivities,
  safeSegment,
  type ArchiveActivitiesOptions,
  type ArchiveInput,
} from '../../src/activities/archive';
import type { ArchivedFile } from '../../src/contract/messages';
import { FailureType } from '../../src/failures';
import { startServer, type LocalServer } from '../support/http-server';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const payload = randomBytes(256 * 1024 + 17);
const payloadSha = sha(payload);
const other = randomBytes(10_000);
const otherSha = sha(other);
const SIG = 'X-Signature=topsecretsig123&Expires=999';

/** The media host: its requests are the downloads made, its connections those opened. */
let server: LocalServer;
let base: string;
/** A second server on 127.0.0.2: the target of redirects that must be refused. */
let server2: LocalServer;
let base2: string;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url, 'http://x');
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
      case '/other.mp4':
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': other.length });
        res.end(other);
        return;
      case '/redirect.mp4':
        res.writeHead(302, { location: `/video.mp4?${SIG}` }).end();
        return;
      case '/to-127.0.0.2.mp4':
        res.writeHead(302, { location: `${base2}/video.mp4` }).end();
        return;
      case '/to-localhost.mp4':
        res.writeHead(302, { location: `http://localhost:${new URL(base).port}/video.mp4` }).end();
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
  base = server.url;
  server2 = await startServer((_req, res) => res.writeHead(200, { 'content-length': 2 }).end('no'), {
    host: '127.0.0.2',
  });
  base2 = server2.url;
});

afterAll(async () => {
  await server?.close();
  await server2?.close();
});

/** Activities over a fresh archive root; loopback allowed unless the test says otherwise. */
function setup(opts: Partial<ArchiveActivitiesOptions> = {}, info: Partial<Info> = {}) {
  const archiveRoot = mkdtempSync(path.join(os.tmpdir(), 'reelflow-archive-'));
  // Failures are the point of most tests here: keep the harness's WARN logs out of the output.
  const env = new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const { archiveOutput } = createArchiveActivities({
    archiveRoot,
    heartbeatIntervalMs: 0,
    allowPrivate: true,
    ...opts,
  });
  const run = (input: ArchiveInput): Promise<ArchivedFile> => env.run(archiveOutput, input);
  /** The folder of a pipeline's vendor task. */
  const folder = (pipelineId: string, taskId: string) =>
    path.join(archiveRoot, safeSegment(pipelineId), safeSegment(taskId));
  return { archiveRoot, env, beats, run, folder };
}

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

const contents = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

test('downloads with a correct sha256, writes a sha256sum file and its source, leaves no .part', async () => {
  const { archiveRoot, beats, run } = setup();
  const url = `${base}/video.mp4?${SIG}`;
  const out = await run({
    pipelineId: 'pipe-1',
    taskId: 'task-1',
    name: 'generation.mp4',
    url,
    expectedBytes: payload.length,
  });
  expect(out).toEqual({
    name: 'generation.mp4',
    path: path.join(archiveRoot, 'pipe-1', 'task-1', 'generation.mp4'),
    sha256: payloadSha,
    bytes: payload.length,
    sourceUrl: `${base}/video.mp4`, // no signed query in workflow history
    taskId: 'task-1',
  });
  expect(readFileSync(out.path).equals(payload)).toBe(true);
  expect(readFileSync(`${out.path}.sha256`, 'utf8')).toBe(`${payloadSha}  generation.mp4\n`);
  expect(JSON.parse(readFileSync(`${out.path}.source.json`, 'utf8'))).toEqual({
    taskId: 'task-1',
    url: `${base}/video.mp4`,
    sha256: payloadSha,
    bytes: payload.length,
  });
  expect(readdirSync(path.dirname(out.path)).sort()).toEqual([
    'generation.mp4',
    'generation.mp4.sha256',
    'generation.mp4.source.json',
  ]);
  expect(beats.length).toBeGreaterThan(0);
  expect(beats).toContainEqual(expect.objectContaining({ phase: 'download', total: payload.length }));
});

test('a body without Content-Length and a redirect are both archived', async () => {
  const { run } = setup();
  const a = await run({ pipelineId: 'p', taskId: 't', name: 'a.mp4', url: `${base}/chunked.mp4` });
  expect(a.sha256).toBe(payloadSha);
  const b = await run({ pipelineId: 'p', taskId: 't', name: 'b.mp4', url: `${base}/redirect.mp4?${SIG}` });
  expect(b.sha256).toBe(payloadSha);
});

test('a retry of a finished archive makes no HTTP request; a damaged file is fetched again', async () => {
  const { run } = setup();
  const input = { pipelineId: 'pipe-2', taskId: 'task-2', name: 'erase.mp4', url: `${base}/video.mp4?${SIG}` };
  const first = await run(input);
  const before = server.requests.length;
  const second = await run({ ...input, url: `${base}/video.mp4?X-Signature=resigned` }); // same object, new signature
  expect(second).toEqual(first);
  expect(server.requests.length).toBe(before);

  writeFileSync(first.path, Buffer.from('corrupted'));
  const third = await run(input);
  expect(server.requests.length).toBe(before + 1);
  expect(third.sha256).toBe(payloadSha);
  expect(readFileSync(third.path).equals(payload)).toBe(true);
});

describe('keyed by the vendor task, verified by its recorded source', () => {
  test('a reused pipeline id with a new task gets the new file, and the old run keeps its own', async () => {
    const { run } = setup();
    const p1 = await run({ pipelineId: 'P1', taskId: 'task-A', name: 'generated.mp4', url: `${base}/video.mp4` });
    const p3 = await run({ pipelineId: 'P1', taskId: 'task-B', name: 'generated.mp4', url: `${base}/other.mp4` });
    expect(p3.sha256).toBe(otherSha);
    expect(p3.path).not.toBe(p1.path);
    expect(sha(readFileSync(p3.path))).toBe(otherSha);
    expect(sha(readFileSync(p1.path))).toBe(payloadSha); // nothing of the old run is lost
  });

  test('a stored file whose recorded source is another URL, or that has no source record, is downloaded again', async () => {
    const { run } = setup();
    const first = await run({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/video.mp4` });
    const moved = await run({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/other.mp4` });
    expect(moved.sha256).toBe(otherSha);
    expect(moved.path).toBe(first.path);

    // Recorded for another task: not this one's file.
    writeFileSync(
      `${first.path}.source.json`,
      JSON.stringify({ taskId: 'someone-else', url: `${base}/other.mp4`, sha256: otherSha, bytes: other.length }),
    );
    let before = server.requests.length;
    await run({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/other.mp4` });
    expect(server.requests.length).toBe(before + 1);

    // As main left a file: its .sha256 but no record of where it came from.
    rmSync(`${first.path}.source.json`);
    before = server.requests.length;
    const again = await run({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/other.mp4` });
    expect(server.requests.length).toBe(before + 1);
    expect(again.sha256).toBe(otherSha);
  });

  test('without a task id (scheduled before the field existed) the folder is keyed by the URL', async () => {
    const { archiveRoot, run } = setup();
    const a = await run({ pipelineId: 'p', name: 'v.mp4', url: `${base}/video.mp4?${SIG}` });
    expect(a.path).toBe(path.join(archiveRoot, 'p', `_url-${sha(`${base}/video.mp4`)}`, 'v.mp4'));
    expect(a.taskId).toBeUndefined();
    const b = await run({ pipelineId: 'p', name: 'v.mp4', url: `${base}/other.mp4` });
    expect(b.sha256).toBe(otherSha);
    expect(sha(readFileSync(a.path))).toBe(payloadSha);
  });

  test('ids "x/y" and "x_y-<hash>" (main\'s encoding of "x/y") never share a folder', async () => {
    const { run } = setup();
    const mainEncoding = `x_y-${sha('x/y').slice(0, 8)}`;
    const a = await run({ pipelineId: 'x/y', taskId: 't/1', name: 'v.mp4', url: `${base}/video.mp4` });
    const b = await run({
      pipelineId: mainEncoding,
      taskId: `t_1-${sha('t/1').slice(0, 8)}`,
      name: 'v.mp4',
      url: `${base}/other.mp4`,
    });
    expect(path.dirname(b.path)).not.toBe(path.dirname(a.path));
    expect(sha(readFileSync(a.path))).toBe(payloadSha);
    expect(sha(readFileSync(b.path))).toBe(otherSha);
  });
});

/** Reads back the documented encoding; a round trip for every id proves it injective. */
function decodeSegment(seg: string): string | undefined {
  if (!seg.startsWith('~')) return seg;
  if (seg.indexOf('~~', 1) >= 0) return undefined; // the hashed form of a long id
  const bytes: number[] = [];
  for (let i = 1; i < seg.length; i++) {
    if (seg[i] === '~') {
      bytes.push(parseInt(seg.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(seg.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

test('the segment encoding is injective: plain ids stay, others round-trip, long ones are hashed apart', () => {
  expect(safeSegment('generation.mp4')).toBe('generation.mp4');
  expect(safeSegment('cgt-20250101-abc_1')).toBe('cgt-20250101-abc_1');
  expect(safeSegment(safeSegment('x/y'))).not.toBe(safeSegment('x/y'));
  const ids = [
    'x/y',
    'x_y',
    `x_y-${sha('x/y').slice(0, 8)}`,
    '~x~2Fy',
    'x~y',
    'a/b',
    'a\\b',
    'a_b',
    '..',
    '.',
    '',
    '.hidden',
    '/abs',
    'ü.mp4',
    'a..b',
    '-lead',
    'x'.repeat(120),
    'x'.repeat(121),
    'x'.repeat(500),
    `${'x'.repeat(500)}y`,
    '日本語/タスク',
  ];
  for (let i = 0; i < 300; i++) ids.push(randomBytes(1 + (i % 40)).toString('latin1'));
  const segs = new Map<string, string>();
  for (const id of ids) {
    const seg = safeSegment(id);
    expect(seg).toMatch(/^(?:[A-Za-z0-9][A-Za-z0-9._-]*|~[A-Za-z0-9_~-]*)$/);
    expect(['.', '..', '']).not.toContain(seg);
    expect(seg.length).toBeLessThanOrEqual(120);
    const decoded = decodeSegment(seg);
    if (decoded !== undefined) expect(decoded).toBe(id);
    const prior = segs.get(seg);
    if (prior !== undefined) expect(prior).toBe(id);
    segs.set(seg, id);
  }
});

test('404 is non-retryable "URL expired or gone", names the file and status, never the query', async () => {
  const { run, folder } = setup();
  const f = await failureOf(
    run({ pipelineId: 'p', taskId: 't', name: 'generation.mp4', url: `${base}/gone.mp4?${SIG}` }),
  );
  expect(f.type).toBe(FailureType.ArchiveUrlGone);
  expect(f.nonRetryable).toBe(true);
  expect(f.message).toContain('generation.mp4');
  expect(f.message).toContain('404');
  expect(f.message).toMatch(/expired or gone/);
  expect(f.message).toContain(`${base}/gone.mp4`);
  expect(JSON.stringify({ m: f.message, d: f.details })).not.toMatch(/topsecretsig|Signature|Expires/);
  expect(contents(folder('p', 't'))).toEqual([]);
});

test('5xx is retryable; another 4xx is not', async () => {
  const { run } = setup();
  const busy = await failureOf(run({ pipelineId: 'p', taskId: 't', name: 'x', url: `${base}/busy.mp4?${SIG}` }));
  expect(busy.type).toBe(FailureType.ArchiveHttpError);
  expect(busy.nonRetryable).toBe(false);
  const bad = await failureOf(run({ pipelineId: 'p', taskId: 't', name: 'x', url: `${base}/bad-request.mp4` }));
  expect(bad.nonRetryable).toBe(true);
});

test('a connection reset mid-body fails retryably and leaves neither a final file nor a .part', async () => {
  const { run, folder } = setup();
  const f = await failureOf(run({ pipelineId: 'p', taskId: 't', name: 'half.mp4', url: `${base}/reset.mp4?${SIG}` }));
  expect(f.type).toBe(FailureType.ArchiveNetworkError);
  expect(f.nonRetryable).toBe(false);
  expect(f.message).not.toMatch(/topsecretsig/);
  expect(contents(folder('p', 't'))).toEqual([]);
});

test('a size other than expectedBytes is refused and not kept', async () => {
  const { run, folder } = setup();
  const f = await failureOf(
    run({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/video.mp4`, expectedBytes: 10 }),
  );
  expect(f.type).toBe(FailureType.ArchiveSizeMismatch);
  expect(contents(folder('p', 't'))).toEqual([]);
});

describe('size limit', () => {
  const maxBytes = 100_000;

  test('a Content-Length over the limit is refused before the body, naming size and limit', async () => {
    const { run, folder } = setup({ maxBytes });
    const f = await failureOf(run({ pipelineId: 'p', taskId: 't', name: 'big.mp4', url: `${base}/video.mp4?${SIG}` }));
    expect(f.type).toBe(FailureType.ArchiveTooLarge);
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain(`Content-Length ${payload.length} bytes`);
    expect(f.message).toContain(`limit of ${maxBytes} bytes`);
    expect(f.message).toContain('big.mp4');
    expect(contents(folder('p', 't'))).toEqual([]);
  });

  test('a body without Content-Length is cut off at the limit', async () => {
    const { run, folder } = setup({ maxBytes });
    const f = await failureOf(run({ pipelineId: 'p', taskId: 't', name: 'big.mp4', url: `${base}/chunked.mp4` }));
    expect(f.type).toBe(FailureType.ArchiveTooLarge);
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain(`limit of ${maxBytes} bytes`);
    expect(contents(folder('p', 't'))).toEqual([]);
  });

  test('an expectedBytes over the limit is refused without a request', async () => {
    const { run } = setup({ maxBytes });
    const before = server.requests.length;
    const f = await failureOf(
      run({ pipelineId: 'p', taskId: 't', name: 'big.mp4', url: `${base}/video.mp4`, expectedBytes: maxBytes + 1 }),
    );
    expect(f.type).toBe(FailureType.ArchiveTooLarge);
    expect(server.requests.length).toBe(before);
  });
});

describe('only public addresses unless opted in (all servers here are on 127.0.0.0/8)', () => {
  /** Runs with the opt-in off (or a list) and checks the refusal reached no server. */
  async function refused(input: ArchiveInput, opts: Partial<ArchiveActivitiesOptions> = {}) {
    const { run } = setup({ allowPrivate: false, ...opts });
    const before = { hits: server.requests.length, connections: server.connections, connections2: server2.connections };
    const f = await failureOf(run(input));
    expect(f.type).toBe(FailureType.ArchiveAddressRefused);
    expect(f.nonRetryable).toBe(true);
    expect(f.message).not.toMatch(/topsecretsig/);
    expect(server2.connections).toBe(before.connections2);
    return { f, before };
  }

  test('a literal loopback address is refused before connecting', async () => {
    const { f, before } = await refused({
      pipelineId: 'p',
      taskId: 't',
      name: 'v.mp4',
      url: `${base}/video.mp4?${SIG}`,
    });
    expect(f.message).toMatch(/127\.0\.0\.1.*loopback/);
    expect(server.connections).toBe(before.connections);
  });

  test('localhost and IPv4-mapped loopback are refused before connecting', async () => {
    const port = new URL(base).port;
    for (const host of ['localhost', '[::ffff:127.0.0.1]']) {
      const { before } = await refused({
        pipelineId: 'p',
        taskId: 't',
        name: 'v.mp4',
        url: `http://${host}:${port}/video.mp4`,
      });
      expect(server.connections).toBe(before.connections);
    }
  });

  test('a name that resolves to loopback is refused at connect time (DNS rebinding)', async () => {
    const lookup: LookupFunction = (hostname, options, callback) => {
      if (hostname !== 'media.example.test')
        return callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all)
        return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: '127.0.0.1', family: 4 },
        ]);
      callback(null, '127.0.0.1', 4);
    };
    const port = new URL(base).port;
    const { f, before } = await refused(
      { pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `http://media.example.test:${port}/video.mp4` },
      { lookup },
    );
    expect(f.message).toContain('media.example.test (resolves to 127.0.0.1)');
    expect(server.connections).toBe(before.connections);
  });

  test('redirects to a non-public address are refused, also when the first hop is allowed', async () => {
    const allowPrivate = ['127.0.0.1/32'];
    const { f } = await refused(
      { pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/to-127.0.0.2.mp4` },
      { allowPrivate },
    );
    expect(f.message).toContain('127.0.0.2');
    await refused({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/to-localhost.mp4` }, { allowPrivate });
    // The list itself works: the allowed address is reached.
    const { run } = setup({ allowPrivate });
    expect((await run({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/video.mp4` })).sha256).toBe(
      payloadSha,
    );
  });
});

describe('never writes through a symlink out of the archive root', () => {
  test('a pipeline or task folder that is a symlink is refused, and nothing lands outside', async () => {
    const { archiveRoot, run } = setup();
    const outside = mkdtempSync(path.join(os.tmpdir(), 'reelflow-outside-'));
    symlinkSync(outside, path.join(archiveRoot, 'p-link'));
    mkdirSync(path.join(archiveRoot, 'p'));
    symlinkSync(outside, path.join(archiveRoot, 'p', 't-link'));
    for (const [pipelineId, taskId] of [
      ['p-link', 't'],
      ['p', 't-link'],
    ]) {
      const f = await failureOf(run({ pipelineId, taskId, name: 'v.mp4', url: `${base}/video.mp4` }));
      expect(f.type).toBe(FailureType.ArchiveUnsafePath);
      expect(f.nonRetryable).toBe(true);
      expect(f.message).toMatch(/symlink/);
    }
    expect(readdirSync(outside)).toEqual([]);
  });

  test('symlinks planted at the file, its .part and its sidecars are replaced, never followed', async () => {
    const { run, folder } = setup();
    const outside = mkdtempSync(path.join(os.tmpdir(), 'reelflow-outside-'));
    const victim = path.join(outside, 'victim');
    writeFileSync(victim, 'do not touch');
    const dir = folder('p', 't');
    mkdirSync(dir, { recursive: true });
    for (const suffix of ['', '.part', '.sha256', '.sha256.part', '.source.json', '.source.json.part']) {
      symlinkSync(victim, path.join(dir, `v.mp4${suffix}`));
    }
    const input = { pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/video.mp4` };
    const out = await run(input);
    expect(out.sha256).toBe(payloadSha);
    expect(readFileSync(victim, 'utf8')).toBe('do not touch');
    for (const f of readdirSync(dir)) expect(lstatSync(path.join(dir, f)).isSymbolicLink()).toBe(false);
    expect(readFileSync(out.path).equals(payload)).toBe(true);

    // A symlink at the file with sidecars that vouch for its target is not "already archived".
    rmSync(out.path);
    symlinkSync(victim, out.path);
    writeFileSync(`${out.path}.sha256`, `${sha('do not touch')}  v.mp4\n`);
    writeFileSync(
      `${out.path}.source.json`,
      JSON.stringify({ taskId: 't', url: `${base}/video.mp4`, sha256: sha('do not touch'), bytes: 12 }),
    );
    const before = server.requests.length;
    const again = await run(input);
    expect(server.requests.length).toBe(before + 1);
    expect(again.sha256).toBe(payloadSha);
    expect(lstatSync(again.path).isFile()).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('do not touch');
  });
});

describe('a full disk is reported as a full disk', () => {
  const enospc = () =>
    Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      errno: -28,
      syscall: 'write',
    });
  /** As the kernel answers a write on a full disk (a FileHandle's error carries no path). */
  const fullDisk: ArchiveActivitiesOptions['openFile'] = async (file, flags, mode) => {
    const fh = await open(file, flags, mode);
    fh.write = () => Promise.reject(enospc());
    return fh;
  };

  test('ArchiveDiskFull naming the folder, retried a minute later, not as a network error', async () => {
    const { run, folder } = setup({ openFile: fullDisk });
    const f = await failureOf(run({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/video.mp4?${SIG}` }));
    expect(f.type).toBe(FailureType.ArchiveDiskFull);
    expect(f.message).toContain(`disk full writing in ${folder('p', 't')}`);
    expect(f.message).toContain('ENOSPC');
    expect(f.message).toContain('attempt 1 of 3');
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe('1 minute');
    expect(contents(folder('p', 't'))).toEqual([]);
  });

  test('the third attempt gives up (non-retryable)', async () => {
    const { run } = setup({ openFile: fullDisk }, { attempt: 3 });
    const f = await failureOf(run({ pipelineId: 'p', taskId: 't', name: 'v.mp4', url: `${base}/video.mp4` }));
    expect(f.type).toBe(FailureType.ArchiveDiskFull);
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toMatch(/gave up after 3 attempts/);
  });
});

test('cancellation aborts the download and cleans up', async () => {
  const { env, run, folder } = setup();
  const p = run({ pipelineId: 'p', taskId: 't', name: 'slow.mp4', url: `${base}/slow.mp4` });
  await new Promise((r) => setTimeout(r, 200));
  env.cancel();
  await expect(p).rejects.toBeInstanceOf(CancelledFailure);
  expect(contents(folder('p', 't'))).toEqual([]);
});

test('names cannot escape the archive root', async () => {
  const { archiveRoot, run } = setup();
  const out = await run({ pipelineId: '../../etc', taskId: '../..', name: '../passwd', url: `${base}/video.mp4` });
  expect(path.dirname(path.dirname(path.dirname(out.path)))).toBe(archiveRoot);
  expect(out.name).toBe('../passwd');
  const bad = await failureOf(run({ pipelineId: 'p', taskId: 't', name: 'v.mp4.sha256', url: `${base}/video.mp4` }));
  expect(bad.type).toBe(FailureType.ArchiveInvalidInput);
  expect(bad.message).toMatch(/name "v\.mp4\.sha256" must not end in/);
});
