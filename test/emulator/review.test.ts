import { ReviewCallbackSchema, ReviewSyncResponseSchema, ReviewTaskSchema } from '../../src/vendor-api/assumed-shapes';
import type { RunningEmulator } from '../../src/emulator';
import { api, start, systemGroupId, TRACK } from './helpers';
import { USER_1, USER_2 } from '../support/emulator';
import { startServer } from '../support/http-server';
import { SOON, until } from '../support/poll';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const urls = (n: number, ext = 'png') => Array.from({ length: n }, (_, i) => `https://example.com/m/${i}.${ext}`);

describe('async review', () => {
  it('answers 202 with the documented shape, then walks pending → processing → completed', async () => {
    const res = await api(emu).review('async', { images: urls(4), callback_url: 'https://hooks.example.com/r' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      code: 202,
      task_id: expect.stringMatching(/^review-/),
      track_id: TRACK,
      status: 'pending',
      message: expect.any(String),
      callback_url: 'https://hooks.example.com/r',
    });
    const id = res.body.task_id;
    const pending = ReviewTaskSchema.parse((await api(emu).getReview(id)).body);
    expect(pending).toMatchObject({ code: 200, status: 'pending', total_count: 4, done_count: 0 });
    expect(pending.result).toBeUndefined();

    emu.advanceClock(500 + 500); // half-way through processing
    const halfway = (await api(emu).getReview(id)).body;
    expect(halfway).toMatchObject({ status: 'processing', done_count: 2 });

    emu.advanceClock(500);
    const done = ReviewTaskSchema.parse((await api(emu).getReview(id)).body);
    expect(done).toMatchObject({ code: 200, status: 'completed', total_count: 4, done_count: 4 });
    expect(done.result!.review_batch_id).toEqual(expect.any(String));
    expect(done.result!.items).toHaveLength(4);
    for (const [i, item] of done.result!.items.entries()) {
      expect(item).toMatchObject({
        source_url: urls(4)[i],
        submit_review_status: 1,
        asset_url: `Asset://${item.asset_id}`,
        downstream_asset_id: item.asset_id,
        downstream_final_url: expect.stringContaining('/media/assets/'),
      });
    }
  });

  it('yields Asset:// addresses that generation accepts, as Active assets of the user', async () => {
    const res = await api(emu).review('async', { asset_type: 'Video', images: ['https://example.com/ref.mp4'] });
    emu.advanceClock(1_500);
    const [item] = (await api(emu).getReview(res.body.task_id)).body.result.items;
    const gen = await api(emu).createGeneration({
      model: 'm',
      content: [{ type: 'video_url', video_url: { url: item.asset_url }, role: 'reference_video' }],
    });
    expect(gen.status).toBe(200);
    const asset = await api(emu).asset('GetAsset', { Id: item.asset_id });
    expect(asset.body.Result).toMatchObject({
      Status: 'Active',
      AssetType: 'Video',
      GroupId: await systemGroupId(emu, 'AIGC'),
    });
  });

  it('fails single items whose URL contains "reject", and the whole task for "fail-review"', async () => {
    const mixed = await api(emu).review('async', { images: ['https://e.com/ok.png', 'https://e.com/reject-me.png'] });
    const failing = await api(emu).review('async', { images: ['https://e.com/fail-review.png'] });
    emu.advanceClock(1_500);
    const items = (await api(emu).getReview(mixed.body.task_id)).body.result.items;
    expect(items.map((i: any) => i.submit_review_status)).toEqual([1, 0]);
    expect(items[1]).toMatchObject({ error_code: expect.any(String), error_message: expect.any(String) });
    expect(items[1].asset_url).toBeUndefined();
    const failed = (await api(emu).getReview(failing.body.task_id)).body;
    expect(failed).toMatchObject({ status: 'failed', result: { items: [{ submit_review_status: 0 }] } });
  });

  it('uses asset_url_list when both lists are sent', async () => {
    const res = await api(emu).review('async', { images: ['https://e.com/a.png'], asset_url_list: urls(2) });
    expect(emu.inspect().reviewTasks[0].urls).toEqual(urls(2));
    expect(res.status).toBe(202);
  });

  it('generates a 32-hex track_id when the X-Track-Id sent is not one', async () => {
    const res = await api(emu).review('async', { images: urls(1) }, USER_1, 'my-own-trace');
    expect(res.body.track_id).toMatch(/^[0-9a-f]{32}$/);
    expect(emu.inspect().reviewTasks[0].trackId).toBe('my-own-trace');
  });

  it('puts a real-person upload into the LivenessFace group', async () => {
    const face = await systemGroupId(emu, 'LivenessFace');
    const res = await api(emu).review('async', { images: urls(1), group_id: face, group_source: 'real_person' });
    expect(res.status).toBe(202);
    emu.advanceClock(1_500);
    const [item] = (await api(emu).getReview(res.body.task_id)).body.result.items;
    expect((await api(emu).asset('GetAsset', { Id: item.asset_id })).body.Result.GroupId).toBe(face);
  });

  it('calls back on the terminal state with the task object', async () => {
    const rx = await startServer();
    try {
      const res = await api(emu).review('async', { images: urls(2), callback_url: `${rx.url}/review` });
      emu.advanceClock(1_500);
      await until('a callback received', () => rx.requests.length >= 1, SOON);
      const body = ReviewCallbackSchema.parse(JSON.parse(rx.requests[0].body));
      expect(body).toMatchObject({ task_id: res.body.task_id, status: 'completed', done_count: 2 });
      expect(JSON.parse(rx.requests[0].body)).toEqual((await api(emu).getReview(res.body.task_id)).body);
    } finally {
      await rx.close();
    }
  });
});

describe('sync review', () => {
  it('holds the answer for the review and returns the finished task', async () => {
    const quick = await start({ profile: { reviewPendingMs: 20, reviewProcessingMs: 30 } });
    try {
      const started = Date.now();
      const res = await api(quick).review('sync', { images: urls(3) });
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
      expect(res.status).toBe(200);
      const body = ReviewSyncResponseSchema.parse(res.body);
      expect(body).toMatchObject({ code: 200, status: 'completed', total_count: 3, done_count: 3 });
      expect(body.result!.items.every((i) => i.submit_review_status === 1)).toBe(true);
      expect((await api(quick).getReview(body.task_id)).body).toEqual(res.body);
    } finally {
      await quick.close();
    }
  });
});

describe('cancel (admin) and query interval', () => {
  it('cancels a task through the inspection API; the query then shows cancelled', async () => {
    const rx = await startServer();
    try {
      const res = await api(emu).review('async', { images: urls(2), callback_url: rx.url });
      const cancelled = await api(emu).admin('POST', `review/${res.body.task_id}/cancel`);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', done_count: 0 });
      emu.advanceClock(5_000);
      expect((await api(emu).getReview(res.body.task_id)).body.status).toBe('cancelled');
      expect((await api(emu).admin('POST', `review/${res.body.task_id}/cancel`)).status).toBe(409);
      expect((await api(emu).admin('POST', 'review/review-nope/cancel')).status).toBe(404);
      await until('a callback received', () => rx.requests.length >= 1, SOON);
      expect(JSON.parse(rx.requests[0].body).status).toBe('cancelled');
    } finally {
      await rx.close();
    }
  });

  it('answers 429 with Retry-After when a task is queried faster than the minimum interval', async () => {
    const strict = await start({ profile: { reviewMinQueryIntervalMs: 1_000 } });
    try {
      const res = await api(strict).review('async', { images: urls(1) });
      expect((await api(strict).getReview(res.body.task_id)).status).toBe(200);
      const tooSoon = await api(strict).getReview(res.body.task_id);
      expect(tooSoon.status).toBe(429);
      expect(tooSoon.headers.get('retry-after')).toBe('1');
      strict.advanceClock(1_000);
      expect((await api(strict).getReview(res.body.task_id)).status).toBe(200);
      expect(strict.inspect().counters.rateLimited429['review.get']).toBe(1);
    } finally {
      await strict.close();
    }
  });
});

describe('review refusals', () => {
  it('needs X-Access-Token (401) and X-Track-Id (400), on submit and query', async () => {
    expect(await api(emu).review('async', { images: urls(1) }, null)).toMatchObject({
      status: 401,
      body: { code: 401 },
    });
    expect((await api(emu).review('async', { images: urls(1) }, 'bogus')).status).toBe(401);
    const noTrack = await api(emu).review('async', { images: urls(1) }, USER_1, null);
    expect(noTrack).toMatchObject({ status: 400, body: { code: 400, message: expect.stringMatching(/X-Track-Id/) } });
    const { body } = await api(emu).review('async', { images: urls(1) });
    expect((await api(emu).getReview(body.task_id, null)).status).toBe(401);
    expect((await api(emu).getReview(body.task_id, USER_1, null)).status).toBe(400);
    expect((await api(emu).getReview(body.task_id, USER_2)).status).toBe(403);
    expect((await api(emu).getReview('review-unknown')).status).toBe(404);
  });

  const cases: [string, object, RegExp, number?][] = [
    ['no list', {}, /images/],
    ['an empty list', { images: [] }, /at least one/],
    ['a list that is not strings', { images: [1] }, /array of URL strings/],
    ['51 URLs', { images: urls(51) }, /at most 50/],
    ['a non-public URL', { images: ['http://10.0.0.1/a.png'] }, /public/],
    ['a non-http URL', { images: ['ftp://example.com/a.png'] }, /public/],
    ['an unsupported extension', { images: ['https://e.com/a.svg'] }, /unsupported extension/],
    ['no extension', { images: ['https://e.com/a'] }, /unsupported extension/],
    ['mixed types', { images: ['https://e.com/a.png', 'https://e.com/b.mp4'] }, /one type/],
    [
      'asset_type not matching the URLs',
      { asset_type: 'Audio', images: ['https://e.com/a.png'] },
      /asset_type is Audio/,
    ],
    ['videos under the default asset_type Image', { images: ['https://e.com/a.mov'] }, /asset_type is Image/],
    ['an unknown asset_type', { asset_type: 'Text', images: urls(1) }, /asset_type must be/],
    ['a malformed callback_url', { images: urls(1), callback_url: 'x' }, /callback_url/],
    ['real_person without group_id', { images: urls(1), group_source: 'real_person' }, /group_id is required/],
    ['an unknown group_id', { images: urls(1), group_id: 'group-nope' }, /not owned/, 403],
  ];
  it.each(cases)('refuses %s', async (_label, body, message, status = 400) => {
    const res = await api(emu).review('async', body);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ code: status, message: expect.stringMatching(message) });
    expect(emu.inspect().reviewTasks).toHaveLength(0);
  });

  it('accepts all documented extensions per type, and 50 URLs', async () => {
    const image = ['jpeg', 'jpg', 'png', 'webp', 'bmp', 'tiff', 'tif', 'gif', 'heic', 'HEIF'].map(
      (e) => `https://e.com/x.${e}`,
    );
    expect((await api(emu).review('async', { images: image })).status).toBe(202);
    expect(
      (
        await api(emu).review('async', {
          asset_type: 'Video',
          images: ['https://e.com/a.mp4', 'https://e.com/b.mov?x=1'],
        })
      ).status,
    ).toBe(202);
    expect(
      (await api(emu).review('async', { asset_type: 'audio', images: ['https://e.com/a.wav', 'https://e.com/b.mp3'] }))
        .status,
    ).toBe(202);
    expect((await api(emu).review('async', { images: urls(50) })).status).toBe(202);
  });

  it('restricts group_source to empty or real_person, and real_person to the LivenessFace group', async () => {
    const def = await systemGroupId(emu, 'AIGC');
    const other = await api(emu).review('async', { images: urls(1), group_id: def, group_source: 'other' });
    expect(other).toMatchObject({ status: 400, body: { message: expect.stringMatching(/empty or real_person/) } });
    const wrongGroup = await api(emu).review('async', { images: urls(1), group_id: def, group_source: 'real_person' });
    expect(wrongGroup.status).toBe(400);
    expect((await api(emu).review('async', { images: urls(1), group_id: def, group_source: '' })).status).toBe(202);
  });

  it('creates no asset for a rejected item', async () => {
    const res = await api(emu).review('async', { images: ['https://e.com/reject.png'] });
    emu.advanceClock(1_500);
    const [item] = (await api(emu).getReview(res.body.task_id)).body.result.items;
    expect(item.asset_url).toBeUndefined();
    expect(emu.inspect().assets).toHaveLength(0);
  });
});
