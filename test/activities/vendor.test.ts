/**
 * The vendor activities in the SDK's activity harness against an upstream-dialect
 * emulator: what the workflow receives does not depend on the vendor's dialect.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createVendorActivities } from '../../src/activities/vendor';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { createVendorClient, type VendorClient } from '../../src/vendor-api';
import { FailureType } from '../../src/failures';
import { API_KEY, USER_1 } from '../support/emulator';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
let emu: RunningEmulator;
let vendor: VendorClient;
let activities: ReturnType<typeof createVendorActivities>;
const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
const profile = 'default';
const run = <A, R>(fn: (input: A) => Promise<R>, input: A): Promise<R> => env.run(fn, input);

beforeAll(async () => {
  emu = await startEmulator({ port: 0, dialect: 'upstream', pathWord: 'acme', clock: () => T0 });
  vendor = createVendorClient({
    baseUrl: emu.url,
    identityUrl: emu.url,
    apiKey: API_KEY,
    accessToken: USER_1,
    pathWord: 'acme',
  });
  activities = createVendorActivities({ vendorFor: () => vendor, archiveRoot: '/nonexistent' });
});
afterAll(async () => {
  await vendor.close();
  await emu.close();
});

async function generated() {
  const request = { model: 'm1', content: [{ type: 'text', text: 'x' }] };
  const { id } = await run(activities.generationCreate, { profile, request });
  emu.advanceClock(5_000);
  return run(activities.generationGet, { profile, id });
}

it('generationGet: camelCase fields from the upstream shape, unix seconds, no finishedAt', async () => {
  const task = await generated();
  expect(task).toEqual({
    id: expect.any(String),
    status: 'succeeded',
    videoUrl: expect.stringMatching(/^http/),
    model: 'm1',
    createdAt: Math.floor(T0 / 1000),
    updatedAt: expect.any(Number),
  });
  expect(task.finishedAt).toBeUndefined();
});

it('eraseGet, reviewGetTask and getAsset return the vendor state as is', async () => {
  const video = await generated();
  const erase = await run(activities.eraseCreate, { profile, videoUrl: video.videoUrl! });
  expect((await run(activities.eraseGet, { profile, taskId: erase.taskId })).status).toBe('NOT_START');

  const groups = await run(activities.listAssetGroups, { profile });
  const asset = await run(activities.createAsset, {
    profile,
    groupId: groups[0].id,
    url: 'https://cdn.example.com/a.png',
    assetType: 'Image',
    name: 'a',
  });
  expect(await run(activities.getAsset, { profile, id: asset.id })).toMatchObject({
    status: 'Processing',
    url: undefined,
  });

  emu.setFaults({ 'review.async': { unknownState: { next: 1, state: 'queueing', queries: 1 } } });
  const review = await run(activities.reviewSubmit, {
    profile,
    urls: ['https://cdn.example.com/b.png'],
    assetType: 'Image',
  });
  expect((await run(activities.reviewGetTask, { profile, taskId: review.taskId })).status).toBe('queueing');
});

it('a 429 becomes a failure whose details carry retryAfterAt; a 404 a non-retryable NotFoundError', async () => {
  emu.setFaults({ 'generation.get': { rateLimit429: { next: 1, retryAfterSeconds: 4 } } });
  const before = Date.now();
  const limited = await run(activities.generationGet, { profile, id: 'x' }).catch((e: unknown) => e);
  expect(limited).toBeInstanceOf(ApplicationFailure);
  const info = (limited as ApplicationFailure).details?.[0] as { retryAfterMs: number; retryAfterAt: number };
  expect(info.retryAfterMs).toBe(4_000);
  expect(info.retryAfterAt).toBeGreaterThanOrEqual(before + 4_000);
  expect(info.retryAfterAt).toBeLessThanOrEqual(Date.now() + 4_000);

  const missing = (await run(activities.eraseGet, { profile, taskId: 'nope' }).catch(
    (e: unknown) => e,
  )) as ApplicationFailure;
  expect(missing).toMatchObject({ type: FailureType.NotFoundError, nonRetryable: true });
});
