/**
 * Asset review (docs/vendor-contract.md, "How each interface behaves") through the client against
 * the emulator.
 */
import { REVIEW_MIN_QUERY_INTERVAL_MS } from '../../src/vendor-api/assumed-values';
import { ReviewCallbackSchema } from '../../src/vendor-api/assumed-shapes';
import { ForbiddenError, RateLimitedError, RejectedError, UnauthorizedError } from '../../src/vendor-api/errors';
import { startServer, type LocalServer } from '../support/http-server';
import { SOON, until } from '../support/poll';
import { USER_1 } from '../support/emulator';
import { failure, media, rawCall, useEmulator } from './harness';
import { FailureType } from '../../src/failures';

const h = useEmulator();

let receiver: LocalServer;
beforeAll(async () => {
  receiver = await startServer();
});
afterAll(() => receiver.close());

const SUBMIT_FIELDS = ['images', 'asset_url_list', 'asset_type', 'callback_url', 'group_id', 'group_source'];

/** Submit as the vendor sees it, bypassing the client's own checks. */
const rawSubmit = (
  body: unknown,
  headers: Record<string, string> = { 'X-Access-Token': USER_1, 'X-Track-Id': 'a'.repeat(32) },
) =>
  failure(
    rawCall(h, {
      endpoint: 'review.submitAsync',
      method: 'POST',
      path: '/api/asset/upload/async',
      headers,
      body,
      knownFields: SUBMIT_FIELDS,
    }),
  );

/** Moves a review task to its end (emulator time) without tripping the query interval. */
async function finished(taskId: string) {
  h.emu.advanceClock(REVIEW_MIN_QUERY_INTERVAL_MS + 500);
  return h.client.review.getTask(taskId);
}

describe('async submit and task query', () => {
  it('202 accepted-only body; completed result items carry Asset:// addresses', async () => {
    const urls = [media('a.png'), media('b.JPG?sig=1'), media('reject-me.png')];
    const traces: string[] = [];
    const accepted = await h.client.review.submitAsync(
      { images: urls, callback_url: `${receiver.url}/cb/review` },
      { onResponse: (m) => traces.push(m.traceId!) },
    );
    expect(accepted).toMatchObject({
      code: 202,
      status: 'pending',
      track_id: traces[0],
      callback_url: `${receiver.url}/cb/review`,
    });
    expect(accepted.track_id).toMatch(/^[0-9a-f]{32}$/);

    const task = await finished(accepted.task_id);
    expect(task).toMatchObject({
      code: 200,
      task_id: accepted.task_id,
      status: 'completed',
      total_count: 3,
      done_count: 3,
    });
    const items = task.result?.items ?? [];
    expect(items.map((i) => i.source_url)).toEqual(urls);
    const [ok, , rejected] = items;
    expect(ok).toMatchObject({ submit_review_status: 1, asset_url: expect.stringMatching(/^Asset:\/\//) });
    // 7.4: failures are reported per item.
    expect(rejected).toMatchObject({
      submit_review_status: 0,
      error_code: expect.anything(),
      error_message: expect.any(String),
    });
    expect(rejected?.asset_url).toBeUndefined();

    // The reviewed address works in generation.
    const gen = await h.client.generation.create({
      model: 'm1',
      content: [
        { type: 'text', text: 'x' },
        { type: 'image_url', image_url: { url: ok.asset_url! }, role: 'first_frame' },
      ],
    });
    expect(gen.id).toEqual(expect.any(String));

    const callback = await until('a callback received', () => receiver.requests[0], SOON);
    expect(ReviewCallbackSchema.parse(JSON.parse(callback.body))).toMatchObject({
      task_id: accepted.task_id,
      status: 'completed',
    });
  });

  it('processing reports progress through done_count', async () => {
    const { task_id } = await h.client.review.submitAsync({ images: [1, 2, 3, 4].map((i) => media(`${i}.png`)) });
    h.emu.advanceClock(100);
    const mid = await h.client.review.getTask(task_id);
    expect(mid).toMatchObject({ status: 'processing', total_count: 4 });
    expect(mid.done_count).toBeLessThan(4);
    expect(mid.result).toBeUndefined();
  });

  it('video batches: the client fills asset_type from the extension (the vendor default is Image)', async () => {
    const accepted = await h.client.review.submitAsync({ images: [media('a.mp4'), media('b.MOV')] });
    expect(h.emu.inspect().reviewTasks[0]).toMatchObject({ taskId: accepted.task_id, assetType: 'Video' });
    expect((await finished(accepted.task_id)).status).toBe('completed');
  });

  it('asset_url_list wins over images when both are sent', async () => {
    await h.client.review.submitAsync({ images: [media('a.png')], asset_url_list: [media('x.wav'), media('y.mp3')] });
    expect(h.emu.inspect().reviewTasks[0]).toMatchObject({
      urls: [media('x.wav'), media('y.mp3')],
      assetType: 'Audio',
    });
  });

  it('minimum query interval: a quick second query is 429 with Retry-After', async () => {
    const { task_id } = await h.client.review.submitAsync({ images: [media('a.png')] });
    await h.client.review.getTask(task_id);
    const err = await failure(h.client.review.getTask(task_id));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(REVIEW_MIN_QUERY_INTERVAL_MS);
  });

  it('a failed task ends failed; a cancelled one ends cancelled', async () => {
    const failed = await h.client.review.submitAsync({ images: [media('fail-review.png')] });
    expect((await finished(failed.task_id)).status).toBe('failed');

    const { task_id } = await h.client.review.submitAsync({ images: [media('a.png')] });
    const res = await fetch(`${h.emu.url}/__emulator/review/${task_id}/cancel`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await finished(task_id)).status).toBe('cancelled');
  });

  it('group_id of another user → 403; real_person source needs the real-person group', async () => {
    const { AssetGroups } = await h.user2.assets.listAssetGroups();
    const err = await failure(h.client.review.submitAsync({ images: [media('a.png')], group_id: AssetGroups[0].Id }));
    expect(err).toBeInstanceOf(ForbiddenError);
    const mine = await h.client.assets.listAssetGroups({ Filter: { GroupType: 'LivenessFace' } });
    const real = mine.AssetGroups[0];
    const ok = await h.client.review.submitAsync({
      images: [media('face.png')],
      group_id: real.Id,
      group_source: 'real_person',
    });
    const done = await finished(ok.task_id);
    const assetId = done.result!.items[0].asset_id!;
    expect((await h.client.assets.getAsset({ Id: assetId })).GroupId).toBe(real.Id);
  });
});

describe('sync submit (assumed response: the finished task)', () => {
  it('returns the completed task with its items', async () => {
    const task = await h.client.review.submitSync({ images: [media('s.webp')] });
    expect(task).toMatchObject({ status: 'completed', total_count: 1 });
    expect(task.result?.items[0]).toMatchObject({
      submit_review_status: 1,
      asset_url: expect.stringMatching(/^Asset:\/\//),
    });
  });
});

describe('submission rules: the client refuses, and the vendor agrees', () => {
  const cases: [string, Record<string, unknown>, string | undefined][] = [
    ['more than 50 URLs', { images: Array.from({ length: 51 }, (_, i) => media(`${i}.png`)) }, 'images'],
    ['mixed media types', { images: [media('a.png'), media('b.mp4')] }, undefined],
    ['unsupported extension', { images: [media('a.pdf')] }, 'images[0]'],
    ['non-public / non-http URL', { images: ['ftp://cdn.example.com/a.png'] }, 'images[0]'],
    ['asset_type disagreeing with the URLs', { images: [media('a.mp4')], asset_type: 'Image' }, 'asset_type'],
    [
      'group_source other than empty or real_person',
      { images: [media('a.png')], group_id: 'g', group_source: 'x' },
      'group_source',
    ],
    ['no URLs', { images: [] }, 'images'],
  ];

  it.each(cases)('%s', async (_label, body, vendorField) => {
    const before = h.emu.inspect().requests.length;
    const ours = await failure(h.client.review.submitAsync(body));
    expect(ours).toBeInstanceOf(RejectedError);
    expect(ours.status).toBeUndefined();
    expect(h.emu.inspect().requests).toHaveLength(before);

    const vendor = await rawSubmit(body);
    expect(vendor).toBeInstanceOf(RejectedError);
    expect(vendor.status).toBe(400);
    expect(vendor.field).toBe(vendorField);
  });

  it('X-Access-Token and X-Track-Id are required together', async () => {
    const noTrack = await rawSubmit({ images: [media('a.png')] }, { 'X-Access-Token': USER_1 });
    expect(noTrack).toMatchObject({ name: FailureType.RejectedError, status: 400 });
    const noToken = await rawSubmit({ images: [media('a.png')] }, { 'X-Track-Id': 'b'.repeat(32) });
    expect(noToken).toBeInstanceOf(UnauthorizedError);
    expect(await failure(h.make({ accessToken: 'bad' }).review.getTask('t'))).toBeInstanceOf(UnauthorizedError);
  });
});
