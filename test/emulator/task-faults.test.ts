/**
 * Task faults: decided once per created task (seeded, like every fault), shown by that
 * task's queries — read-after-write lag, unknown states, generation tasks that expire.
 */
import { parseFaultConfig } from '../../src/emulator/faults';
import type { RunningEmulator } from '../../src/emulator';
import { api, generatedVideo, prompt, start, systemGroupId } from './helpers';
import { startServer } from '../support/http-server';
import { SOON, until } from '../support/poll';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ seed: 7 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('readLag: a new task is "not found" for ms after its create answered', () => {
  it('generation, erase and review queries answer 404, then the task', async () => {
    const lag = { readLag: { next: 1, ms: 5_000 } };
    emu.setFaults({ 'generation.create': lag, 'erase.create': lag, 'review.async': lag });
    const gen = await api(emu).createGeneration(prompt('x'));
    expect((await api(emu).getGeneration(gen.body.id)).status).toBe(404);
    const review = await api(emu).review('async', { images: ['https://cdn.example.com/a.png'] });
    expect((await api(emu).getReview(review.body.task_id)).status).toBe(404);
    emu.advanceClock(4_999);
    expect((await api(emu).getGeneration(gen.body.id)).status).toBe(404);
    emu.advanceClock(1);
    expect((await api(emu).getGeneration(gen.body.id)).body).toMatchObject({ id: gen.body.id, status: 'succeeded' });
    expect((await api(emu).getReview(review.body.task_id)).status).toBe(200);

    const erase = await api(emu).createErase({ video_url: (await api(emu).getGeneration(gen.body.id)).body.video_url });
    expect((await api(emu).getErase(erase.body.task_id)).status).toBe(404);
    emu.advanceClock(5_000);
    expect((await api(emu).getErase(erase.body.task_id)).status).toBe(200);
    // Only the first create of each key was hit (next: 1), and the log says which.
    const second = await api(emu).createGeneration(prompt('y'));
    expect((await api(emu).getGeneration(second.body.id)).status).toBe(200);
    expect(
      emu
        .inspect()
        .requests.filter((r) => r.faults.includes('readLag'))
        .map((r) => r.endpoint),
    ).toEqual(['generation.create', 'review.async', 'erase.create']);
  });

  it('GetAsset of a new asset answers AssetNotOwned (403), then the asset', async () => {
    emu.setFaults({ 'assets.CreateAsset': { readLag: { next: 1, ms: 2_000 } } });
    const group = await systemGroupId(emu, 'AIGC');
    const { body } = await api(emu).asset('CreateAsset', { GroupId: group, URL: 'https://cdn.example.com/a.png' });
    const hidden = await api(emu).asset('GetAsset', { Id: body.Result.Id });
    expect(hidden).toMatchObject({ status: 403, body: { Code: 'AssetNotOwned' } });
    emu.advanceClock(2_000);
    expect((await api(emu).asset('GetAsset', { Id: body.Result.Id })).body.Result).toMatchObject({
      Id: body.Result.Id,
      Status: 'Active',
    });
  });
});

describe('unknownState: a state reelflow does not know', () => {
  it('for the first K queries, then the real state; callbacks keep the real one', async () => {
    const rx = await startServer();
    try {
      emu.setFaults({ 'generation.create': { unknownState: { next: 1, state: 'weird', queries: 2 } } });
      const { body } = await api(emu).createGeneration(prompt('x', { callback_url: `${rx.url}/cb` }));
      emu.advanceClock(3_000);
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push((await api(emu).getGeneration(body.id)).body);
      expect(seen.map((t) => t.status)).toEqual(['weird', 'weird', 'succeeded']);
      expect(seen[0]).not.toHaveProperty('video_url');
      expect(seen[0]).not.toHaveProperty('finished_at');
      await until('3 callbacks received', () => rx.requests.length >= 3, SOON);
      expect(rx.requests.map((r) => JSON.parse(r.body).status)).toEqual(['queued', 'running', 'succeeded']);
    } finally {
      await rx.close();
    }
  });

  it('forever when no count is given, on erase, review and asset tasks too', async () => {
    emu.setFaults({
      'erase.create': { unknownState: { next: 1, state: 'NOT_START' } },
      'review.async': { unknownState: { next: 1, state: 'UNKNOWN' } },
      'assets.CreateAsset': { unknownState: { next: 1, state: 'Uploading' } },
    });
    const { videoUrl } = await generatedVideo(emu);
    const erase = await api(emu).createErase({ video_url: videoUrl });
    const review = await api(emu).review('async', { images: ['https://cdn.example.com/a.png'] });
    const group = await systemGroupId(emu, 'AIGC');
    const asset = await api(emu).asset('CreateAsset', { GroupId: group, URL: 'https://cdn.example.com/b.png' });
    emu.advanceClock(60_000);
    for (let i = 0; i < 3; i++) {
      expect((await api(emu).getErase(erase.body.task_id)).body).toEqual({
        task_id: erase.body.task_id,
        request_id: expect.any(String),
        status: 'NOT_START',
      });
      expect((await api(emu).getReview(review.body.task_id)).body).not.toHaveProperty('result');
      expect((await api(emu).asset('GetAsset', { Id: asset.body.Result.Id })).body.Result).toMatchObject({
        Status: 'Uploading',
        URL: '',
      });
    }
    expect(emu.inspect().eraseTasks[0].status).toBe('SUCCESS');
  });
});

describe('expire: a generation task ends expired', () => {
  it('in place of its planned end, with a reason, a finished_at and a callback', async () => {
    const rx = await startServer();
    try {
      emu.setFaults({ 'generation.create': { expire: { next: 1 } } });
      const { body } = await api(emu).createGeneration(prompt('x', { callback_url: `${rx.url}/cb` }));
      emu.advanceClock(3_000);
      const task = (await api(emu).getGeneration(body.id)).body;
      expect(task).toMatchObject({
        status: 'expired',
        fail_reason: expect.stringContaining('expired'),
        finished_at: expect.any(Number),
      });
      expect(task).not.toHaveProperty('video_url');
      await until('3 callbacks received', () => rx.requests.length >= 3, SOON);
      expect(JSON.parse(rx.requests[2].body).status).toBe('expired');
    } finally {
      await rx.close();
    }
  });

  it('draws from its own seeded stream: the same seed picks the same tasks', async () => {
    const statuses = async () => {
      emu.reset();
      emu.setFaults({ 'generation.create': { expire: { probability: 0.5 } } });
      const ids = [];
      for (let i = 0; i < 12; i++) ids.push((await api(emu).createGeneration(prompt(`p${i}`))).body.id as string);
      emu.advanceClock(3_000);
      return Promise.all(ids.map(async (id) => (await api(emu).getGeneration(id)).body.status as string));
    };
    const first = await statuses();
    expect(new Set(first)).toEqual(new Set(['expired', 'succeeded']));
    expect(await statuses()).toEqual(first);
  });
});

describe('configuration', () => {
  it.each([
    [{ 'generation.get': { readLag: { ms: 1 } } }, /readLag belongs under a create key/],
    [{ 'erase.create': { expire: { next: 1 } } }, /expire belongs under generation.create/],
    [{ 'generation.create': { unknownState: { next: 1 } } }, /unknownState\.state/],
    [{ 'generation.create': { readLag: { next: 1 } } }, /readLag\.ms/],
    [{ 'review.callback': { unknownState: { state: 'x' } } }, /belongs under a create key/],
  ])('refuses %j', (config, why) => {
    expect(() => parseFaultConfig(config)).toThrow(why);
  });

  it("accepts them under every create key and '*'", () => {
    const all = { readLag: { next: 1, ms: 10 }, unknownState: { next: 1, state: 'x', queries: 2 } };
    for (const key of ['generation.create', 'erase.create', 'review.async', 'review.sync', 'assets.CreateAsset']) {
      expect(parseFaultConfig({ [key]: all })).toBeTruthy();
    }
    expect(parseFaultConfig({ '*': { ...all, expire: { probability: 0.1 } } })).toBeTruthy();
  });
});
