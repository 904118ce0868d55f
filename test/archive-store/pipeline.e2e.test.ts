/**
 * The archive on a real S3-compatible server (versitygw, test/setup/global-setup.ts): a
 * pipeline archives both videos (multipart: the emulator serves 20 MiB and 9 MiB files), the
 * objects and sidecars hold the right sha256, and the history holds keys, never a signed
 * URL. Then the store answers 500 and SlowDown through a fault proxy: the activity fails,
 * is retried by Temporal, and ends with exactly one object and no multipart upload left.
 * Last, the activity run again (the SDK's activity harness) finds the object and uploads
 * nothing, unless its sidecar no longer names it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createArchiveActivities } from '../../src/activities/archive';
import type { WorkflowHandle } from '@temporalio/client';
import type { ArchivedFile, PipelineResult } from '../../src/contract/messages';
import { startHarness, type Harness } from '../support/harness';
import {
  isComplete,
  isUploadPart,
  keysIn,
  newBucket,
  objectSha256,
  objectText,
  pendingUploads,
  s3Client,
  startFaultProxy,
  testStore,
  type FaultProxy,
} from '../support/object-store';

const MiB = 2 ** 20;
const media = { generated: randomBytes(20 * MiB), erased: randomBytes(9 * MiB) };
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let h: Harness;
let reader: S3Client;
let workerClient: S3Client;
let proxy: FaultProxy;
let bucket: string;

beforeAll(async () => {
  const store = testStore();
  reader = s3Client(store);
  bucket = await newBucket(reader, 'pipeline');
  proxy = await startFaultProxy(store.endpoint);
  // One try per request: an injected fault fails the activity's attempt, and Temporal retries it.
  workerClient = s3Client(store, proxy.url, 1);
  const mediaDir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-large-media-'));
  writeFileSync(path.join(mediaDir, 'generated.mp4'), media.generated);
  writeFileSync(path.join(mediaDir, 'erased.mp4'), media.erased);
  h = await startHarness({
    emulator: { mediaDir, profile: { generationRunningMs: 300, eraseInProgressMs: 300 } },
    archiveStore: { client: workerClient, bucket, prefix: 'archive' },
  });
});
afterAll(async () => {
  await h?.close();
  await proxy?.close();
  reader?.destroy();
  workerClient?.destroy();
});

const generation = { model: 'video-model-1', content: [{ type: 'text' as const, text: 'a lighthouse at dusk' }] };

/** The attempts at which archiveOutput started, with the failure before each, from the history. */
async function archiveAttempts(handle: WorkflowHandle): Promise<{ attempt: number; lastFailure?: string }[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  const archiveIds = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'archiveOutput')
      .map((e) => String(e.eventId)),
  );
  return events.flatMap((e) => {
    const started = e.activityTaskStartedEventAttributes;
    if (!started || !archiveIds.has(String(started.scheduledEventId))) return [];
    const last = started.lastFailure;
    const lastFailure = last ? `${last.applicationFailureInfo?.type}: ${last.message}` : undefined;
    return [{ attempt: started.attempt ?? 1, ...(lastFailure ? { lastFailure } : {}) }];
  });
}

test('a pipeline archives both videos: objects and sidecars with the right sha256, keys in the history, no signed URL', async () => {
  const { handle, result } = await h.run({ name: 'store-both', generation, erase: true });
  expect(result.archived.map((f) => f.name)).toEqual(['generated.mp4', 'erased.mp4']);
  const [generated, erased] = result.archived;
  const generatedTask = result.generation!.taskId;
  expect(generated).toMatchObject({
    bucket,
    key: `archive/_shared/${handle.workflowId}/${generatedTask}/generated.mp4`,
    path: `s3://${bucket}/archive/_shared/${handle.workflowId}/${generatedTask}/generated.mp4`,
    sha256: sha(media.generated),
    bytes: media.generated.length,
  });
  expect(erased).toMatchObject({ bucket, sha256: sha(media.erased), bytes: media.erased.length });
  const keys = await keysIn(reader, bucket);
  expect(keys).toEqual([erased.key, `${erased.key}.sha256`, generated.key, `${generated.key}.sha256`].sort());
  for (const f of [generated, erased] as Required<PipelineResult['archived'][number]>[]) {
    expect(await objectSha256(reader, bucket, f.key)).toBe(f.sha256);
    expect(await objectText(reader, bucket, `${f.key}.sha256`)).toBe(`${f.sha256}  ${f.name}\n`);
  }
  expect(await pendingUploads(reader, bucket)).toEqual([]);
  const history = JSON.stringify((await handle.fetchHistory()).events);
  expect(history).not.toMatch(/X-Amz-Signature|X-Amz-Credential/i);
});

test('the store answers 500, then SlowDown: Temporal retries the archive, which ends with exactly one object', async () => {
  proxy.inject(isUploadPart, { status: 500 }, 1);
  proxy.inject(isComplete, { status: 503, code: 'SlowDown' }, 1);
  const { handle, result } = await h.run({ name: 'store-faults', generation });
  expect(proxy.faulted).toBe(2);
  const [generated] = result.archived;
  expect(generated.sha256).toBe(sha(media.generated));
  const mine = (await keysIn(reader, bucket)).filter((k) => k.includes(`/${handle.workflowId}/`));
  expect(mine).toEqual([generated.key, `${generated.key}.sha256`]);
  expect(await objectSha256(reader, bucket, generated.key!)).toBe(generated.sha256);
  expect(await pendingUploads(reader, bucket)).toEqual([]);
  // The archive activity ran three times: the 500, the SlowDown, the success.
  const [started] = await archiveAttempts(handle);
  expect(started.attempt).toBe(3);
  expect(started.lastFailure).toMatch(
    /^ArchiveStoreError: archive "generated.mp4": s3:\/\/.* failed: SlowDown \(HTTP 503\)/,
  );
});

test('a retried archive finds the object and its sidecar and uploads nothing; a changed sidecar is uploaded again', async () => {
  const { handle, result } = await h.run({ name: 'store-idempotent', generation });
  const [generated] = result.archived;
  const { archiveOutput } = createArchiveActivities({
    archiveRoot: h.archiveRoot,
    allowPrivate: true,
    store: { client: workerClient, bucket, prefix: 'archive' },
  });
  const input = {
    pipelineId: handle.workflowId,
    taskId: generated.taskId!,
    name: 'generated.mp4',
    url: result.generation!.videoUrl,
  };
  proxy.seen.length = 0;
  expect(await new MockActivityEnvironment().run(archiveOutput, input)).toEqual(generated);
  expect(proxy.seen.filter((r) => !r.startsWith('GET ') && !r.startsWith('HEAD '))).toEqual([]);
  // A sidecar that no longer names the object (a half-done overwrite): archived again, one object.
  await workerClient.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: `${generated.key}.sha256`,
      Body: 'stale',
      Metadata: { etag: 'other' },
    }),
  );
  proxy.seen.length = 0;
  expect(await new MockActivityEnvironment().run(archiveOutput, input)).toEqual(generated);
  expect(proxy.seen.filter((r) => r.startsWith('PUT ') || r.startsWith('POST ')).length).toBeGreaterThan(1);
  expect(await objectText(reader, bucket, `${generated.key}.sha256`)).toBe(`${generated.sha256}  generated.mp4\n`);
  expect(await pendingUploads(reader, bucket)).toEqual([]);
});

test('server-side encryption on: the object (each request that writes it) and its sidecar ask the store to encrypt', async () => {
  const { handle, result } = await h.run({ name: 'store-sse', generation });
  const { archiveOutput } = createArchiveActivities({
    archiveRoot: h.archiveRoot,
    allowPrivate: true,
    store: { client: workerClient, bucket, prefix: 'encrypted', sse: 'AES256' },
  });
  proxy.seen.length = 0;
  proxy.encryption.length = 0;
  const input = {
    pipelineId: handle.workflowId,
    taskId: 'sse',
    name: 'generated.mp4',
    url: result.generation!.videoUrl,
  };
  const file = await new MockActivityEnvironment().run<[typeof input], ArchivedFile, typeof archiveOutput>(
    archiveOutput,
    input,
  );
  expect(file.key).toBe(`encrypted/_shared/${handle.workflowId}/sse/generated.mp4`);
  // CreateMultipartUpload (POST ?uploads) and the sidecar's PUT carry it; parts inherit it.
  const asked = proxy.seen.map((r, i) => [r, proxy.encryption[i]]);
  const starts = asked.filter(([r]) => r === `POST /${bucket}/${file.key}`);
  expect(starts[0]?.[1]).toBe('AES256');
  expect(asked.filter(([r]) => r === `PUT /${bucket}/${file.key}.sha256`)).toEqual([
    [`PUT /${bucket}/${file.key}.sha256`, 'AES256'],
  ]);
});
