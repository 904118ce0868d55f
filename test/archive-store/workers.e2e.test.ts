/**
 * The object-store archive with REAL worker processes (dist/workers/main.js) on the real
 * S3-compatible server: a worker SIGKILLed mid-upload leaves a multipart upload that the
 * retry on another worker aborts, ending with one complete object; files archived by a
 * worker that is gone download with `reelflow archive get` and the caller's own key, with
 * another worker alive and with none; wrong credentials and a missing bucket are named by
 * `reelflow doctor` and by strict start, with no secret in any output.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { cli } from '../support/cli';
import { spawnWorker, startHarness, workerEnv, type Harness } from '../support/harness';
import {
  isUploadPart,
  keysIn,
  newBucket,
  objectSha256,
  pendingUploads,
  s3Client,
  startFaultProxy,
  storeEnv,
  testStore,
  type FaultProxy,
  type TestStore,
} from '../support/object-store';
import { until } from '../support/poll';

const MiB = 2 ** 20;
const media = { generated: randomBytes(20 * MiB), erased: randomBytes(3 * MiB) };
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const generation = { model: 'video-model-1', content: [{ type: 'text' as const, text: 'a harbour at night' }] };

let h: Harness;
let store: TestStore;
let reader: S3Client;
let bucket: string;
let proxy: FaultProxy;
const workers: ChildProcess[] = [];
const out = mkdtempSync(path.join(os.tmpdir(), 'reelflow-store-get-'));

beforeAll(async () => {
  store = testStore();
  reader = s3Client(store);
  bucket = await newBucket(reader, 'workers');
  proxy = await startFaultProxy(store.endpoint);
  const mediaDir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-large-media-'));
  writeFileSync(path.join(mediaDir, 'generated.mp4'), media.generated);
  writeFileSync(path.join(mediaDir, 'erased.mp4'), media.erased);
  h = await startHarness({
    inProcessWorkers: false,
    emulator: { mediaDir, profile: { generationRunningMs: 300, eraseInProgressMs: 300 } },
  });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => stop(w)));
});
afterAll(async () => {
  await h?.close();
  await proxy?.close();
  reader?.destroy();
});

function stop(worker: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.kill(signal);
  return exited;
}

function worker(name: string, env: Record<string, string> = {}): ChildProcess {
  const w = spawnWorker(h, name, { ...storeEnv(store, bucket), ...env });
  workers.push(w);
  return w;
}

const logOf = (name: string) => readFileSync(path.join(h.archiveRoot, `${name}.log`), 'utf8');

test('a worker SIGKILLed mid-upload: the retry aborts its multipart upload and ends with one complete object', async () => {
  proxy.inject(isUploadPart, { hold: true }, 2);
  const first = worker('store-killed', { AWS_ENDPOINT_URL_S3: proxy.url });
  const handle = await h.start({ name: 'store-kill', generation });
  await until(
    'the upload is under way, its parts held',
    async () => (proxy.held > 0 && (await pendingUploads(reader, bucket)).length > 0 ? true : undefined),
    { timeoutMs: 60_000 },
  );
  await stop(first, 'SIGKILL');
  const [leftover] = await pendingUploads(reader, bucket);
  expect(leftover).toContain(`/${handle.workflowId}/`);
  worker('store-takeover');
  const result = await handle.result(); // after the archive's heartbeat timeout (60 s)
  const [generated] = result.archived;
  expect(generated.sha256).toBe(sha(media.generated));
  const mine = (await keysIn(reader, bucket)).filter((k) => k.includes(`/${handle.workflowId}/`));
  expect(mine).toEqual([leftover, `${leftover}.sha256`]);
  expect(generated.key).toBe(leftover);
  expect(await objectSha256(reader, bucket, leftover)).toBe(generated.sha256);
  expect(await pendingUploads(reader, bucket)).toEqual([]);
}, 240_000);

test('worker 1 archives and is SIGKILLed: archive get works with worker 2 alive, then with no worker', async () => {
  const first = worker('store-first');
  const { handle, result } = await h.run({ name: 'store-two-workers', generation, erase: true });
  await stop(first, 'SIGKILL');
  const second = worker('store-second');
  await until('worker 2 polls', () => (logOf('store-second').includes('start-up checks') ? true : undefined), {
    timeoutMs: 60_000,
  });
  const [generated, erased] = result.archived;
  // The caller's own key and the store; no REELFLOW_ARCHIVE_URL, no token, no worker needed.
  const env = {
    ...process.env,
    ...storeEnv(store, bucket),
    REELFLOW_ARCHIVE_URL: undefined,
    REELFLOW_ARCHIVE_TOKEN: undefined,
  };
  const got = await cli(['archive', 'get', handle.workflowId, '--out', out, '--json'], { env });
  expect(got.stderr).toBe('');
  expect(got.json()).toEqual({ path: path.join(out, 'erased.mp4'), bytes: erased.bytes, sha256: sha(media.erased) });
  await stop(second);
  const target = path.join(out, 'generated-copy.mp4');
  const again = await cli(['archive', 'get', handle.workflowId, '--name', 'generated.mp4', '--out', target], { env });
  expect(again.code).toBe(0);
  expect(sha(readFileSync(target))).toBe(generated.sha256);
  const output = `${got.stdout}${got.stderr}${again.stdout}${again.stderr}`;
  expect(output).not.toContain(store.secretAccessKey);
  expect(output).not.toMatch(/X-Amz-Signature/i);
}, 180_000);

test('wrong credentials and a missing bucket: named by doctor and by strict start, no secret in any output', async () => {
  const wrongSecret = 'wrong-secret-that-must-not-leak-0123';
  const doctorEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
    ...workerEnv(h),
    ...storeEnv(store, bucket),
    ...extra,
  });
  const check = async (extra: Record<string, string>) => {
    const r = await cli(['doctor', '--json'], { env: doctorEnv(extra) });
    expect(`${r.stdout}${r.stderr}`).not.toContain(wrongSecret);
    expect(`${r.stdout}${r.stderr}`).not.toContain(store.secretAccessKey);
    return (r.json().checks as { id: string; ok: boolean; detail: string; fix?: string }[]).find(
      (c) => c.id === 'archive.store',
    );
  };
  expect(await check({})).toMatchObject({ ok: true, detail: expect.stringContaining('the bucket answers') });
  const refused = await check({ AWS_SECRET_ACCESS_KEY: wrongSecret });
  expect(refused).toMatchObject({ ok: false, detail: expect.stringContaining('refused the credentials (HTTP 403)') });
  expect(refused?.fix).toContain('AWS_SECRET_ACCESS_KEY');
  const missing = await check({ REELFLOW_ARCHIVE_STORE: 's3://no-such-bucket-here/archive' });
  expect(missing).toMatchObject({ ok: false, detail: expect.stringContaining('no such bucket "no-such-bucket-here"') });
  expect(missing?.fix).toContain('REELFLOW_ARCHIVE_STORE');

  for (const [name, extra, said] of [
    ['strict-wrong-key', { AWS_SECRET_ACCESS_KEY: wrongSecret }, 'refused the credentials'],
    ['strict-no-bucket', { REELFLOW_ARCHIVE_STORE: 's3://no-such-bucket-here/archive' }, 'no such bucket'],
  ] as const) {
    // Strict start is the default: no variable needed to refuse.
    const w = worker(name, extra);
    const code = await new Promise<number | null>((resolve) => w.once('exit', (c) => resolve(c)));
    expect(code).not.toBe(0);
    const log = logOf(name);
    expect(log).toContain('archive object store');
    expect(log).toContain(said);
    expect(log).toContain('The worker refuses to start on a failed check');
    expect(log).not.toContain(wrongSecret);
    expect(log).not.toContain(store.secretAccessKey);
  }
}, 120_000);
