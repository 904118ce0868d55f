/**
 * The upstream dialect on the wire: Ark generation shape, nulls for absent optional
 * fields, NOT_START/UNKNOWN erase states, Volcengine OpenAPI asset management. Plus what
 * both dialects share: lowercase asset:// addresses and the configurable path word.
 */
import type { RunningEmulator } from '../../src/emulator';
import { api, generatedVideo, prompt, start, systemGroupId, T0 } from './helpers';
import { API_KEY, USER_1 } from '../support/emulator';
import { startServer } from '../support/http-server';
import { SOON, until } from '../support/poll';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ dialect: 'upstream' });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const seconds = T0 / 1000;

describe('upstream generation', () => {
  it('answers in the Ark shape: content, error, created_at/updated_at, no finished_at, nulls', async () => {
    const { body } = await api(emu).createGeneration(prompt('a red fox'));
    const queued = (await api(emu).getGeneration(body.id)).body;
    expect(queued).toEqual({
      id: body.id,
      model: 'video-model-1',
      status: 'queued',
      content: null,
      error: null,
      created_at: seconds,
      updated_at: seconds,
    });
    emu.advanceClock(3_000);
    const done = (await api(emu).getGeneration(body.id)).body;
    expect(done).toEqual({
      id: body.id,
      model: 'video-model-1',
      status: 'succeeded',
      content: { video_url: expect.stringContaining(`/media/generated/${body.id}.mp4?`) },
      error: null,
      created_at: seconds,
      updated_at: seconds + 3,
    });
    expect((await fetch(done.content.video_url)).status).toBe(200);
  });

  it('a failure is error {code, message}; callbacks carry the same objects', async () => {
    const rx = await startServer();
    try {
      const { body } = await api(emu).createGeneration(prompt('fail-generation', { callback_url: `${rx.url}/cb` }));
      emu.advanceClock(3_000);
      await until('3 callbacks received', () => rx.requests.length >= 3, SOON);
      const failed = (await api(emu).getGeneration(body.id)).body;
      expect(failed).toMatchObject({
        status: 'failed',
        content: null,
        error: { code: 'OutputVideoSensitiveContentDetected', message: expect.stringContaining('fail-generation') },
      });
      expect(rx.requests.map((r) => JSON.parse(r.body).status)).toEqual(['queued', 'running', 'failed']);
      expect(JSON.parse(rx.requests[2].body)).toEqual(failed);
      expect(JSON.parse(rx.requests[0].body)).toMatchObject({ content: null, error: null });
    } finally {
      await rx.close();
    }
  });

  it('adds content.last_frame_url when the create asks return_last_frame, served as a PNG', async () => {
    const { body } = await api(emu).createGeneration(prompt('x', { return_last_frame: true }));
    emu.advanceClock(3_000);
    const { content } = (await api(emu).getGeneration(body.id)).body;
    expect(content.last_frame_url).toContain(`/media/generated/${body.id}-last-frame.png?`);
    const frame = await fetch(content.last_frame_url);
    expect(frame.headers.get('content-type')).toBe('image/png');
    expect((await fetch(content.last_frame_url.replace(/signature=[^&]+/, 'signature=00'))).status).toBe(403);
  });

  it('answers errors as {error: {code, message, param, type}}', async () => {
    const missing = await api(emu).getGeneration('cgt-nope');
    expect(missing).toMatchObject({
      status: 404,
      body: { error: { code: 'ResourceNotFound', message: expect.any(String), param: null, type: null } },
    });
    expect(missing.body).not.toHaveProperty('code');
    const bad = await api(emu).createGeneration({ model: 'm', content: [] });
    expect(bad.body.error).toMatchObject({ code: 'InvalidParameter', message: expect.stringContaining('content') });
    expect((await api(emu).createGeneration(prompt('x'), 'wrong')).body.error.code).toBe('AuthenticationError');
  });
});

describe('upstream erase', () => {
  it('passes through NOT_START, reports UNKNOWN once, and sends null for absent fields', async () => {
    const { videoUrl } = await generatedVideo(emu);
    const { body } = await api(emu).createErase({ video_url: videoUrl });
    const states: string[] = [];
    const first = (await api(emu).getErase(body.task_id)).body;
    expect(first).toEqual({
      task_id: body.task_id,
      request_id: expect.any(String),
      status: 'NOT_START',
      video_url: null,
      fail_reason: null,
    });
    states.push(first.status);
    for (const ms of [300, 0, 500, 1_000, 500]) {
      emu.advanceClock(ms);
      states.push((await api(emu).getErase(body.task_id)).body.status);
    }
    expect(states).toEqual(['NOT_START', 'UNKNOWN', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS']);
    expect(emu.inspect().eraseTasks[0].history.map((h) => h.status)).toEqual([
      'NOT_START',
      'SUBMITTED',
      'QUEUED',
      'IN_PROGRESS',
      'SUCCESS',
    ]);
    expect((await api(emu).getErase(body.task_id)).body).toMatchObject({
      video_url: expect.stringMatching(/^http/),
      fail_reason: null,
    });
  });
});

describe('upstream review', () => {
  it('result null until done; items with nulls and lowercase asset://; the 202 callback_url null', async () => {
    const submitted = await api(emu).review('async', {
      images: ['https://cdn.example.com/a.png', 'https://cdn.example.com/reject.png'],
    });
    expect(submitted.body).toMatchObject({ code: 202, status: 'pending', callback_url: null });
    const pending = (await api(emu).getReview(submitted.body.task_id)).body;
    expect(pending.result).toBeNull();
    emu.advanceClock(2_000);
    const [ok, rejected] = (await api(emu).getReview(submitted.body.task_id)).body.result.items;
    expect(ok).toMatchObject({
      asset_url: expect.stringMatching(/^asset:\/\/asset-/),
      error_code: null,
      error_message: null,
    });
    expect(rejected).toMatchObject({
      asset_id: null,
      asset_url: null,
      downstream_final_url: null,
      error_code: 'REVIEW_REJECTED',
    });
  });
});

describe('upstream asset management (Volcengine OpenAPI style)', () => {
  it('errors sit in ResponseMetadata.Error, with no top-level Code', async () => {
    const res = await api(emu).asset('GetAsset', { Id: 'asset-x' }, USER_1, { 'x-track-id': 'trk-1' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      ResponseMetadata: {
        Action: 'GetAsset',
        Region: 'emulator-local',
        Service: 'asset-management',
        Version: '2024-01-01',
        RequestId: 'trk-1',
        Error: { Code: 'AssetNotOwned', Message: expect.stringContaining('asset-x') },
      },
    });
    expect((await api(emu).asset('GetAsset', {}, 'bad-token')).body.ResponseMetadata.Error.Code).toBe(
      'InvalidAccessToken',
    );
  });

  it('Processing while pending, lists under Items + TotalCount, ResponseMetadata everywhere, null URL', async () => {
    const group = await systemGroupId(emu, 'AIGC');
    const created = await api(emu).asset('CreateAsset', { GroupId: group, URL: 'https://cdn.example.com/a.png' });
    const got = (await api(emu).asset('GetAsset', { Id: created.body.Result.Id })).body.Result;
    expect(got).toMatchObject({ Status: 'Processing', URL: null });
    const list = (await api(emu).asset('ListAssets', {})).body.Result;
    expect(list).toEqual({
      Items: [expect.objectContaining({ Id: created.body.Result.Id, Status: 'Processing' })],
      TotalCount: 1,
    });
    const groups = (await api(emu).asset('ListAssetGroups', {})).body;
    expect(groups.ResponseMetadata).toMatchObject({ Action: 'ListAssetGroups' });
    expect(groups.Result).toMatchObject({ Items: expect.any(Array), TotalCount: 2 });
    const made = await api(emu).asset('CreateAssetGroup', { Name: 'plain' });
    expect((await api(emu).asset('GetAssetGroup', { Id: made.body.Result.Id })).body.Result).toMatchObject({
      Description: null,
      GroupType: null,
    });
    emu.advanceClock(1_000);
    expect((await api(emu).asset('GetAsset', { Id: created.body.Result.Id })).body.Result).toMatchObject({
      Status: 'Active',
      URL: expect.stringMatching(/^http/),
    });
  });

  it('the upstream502 code carries the vendor word', async () => {
    emu.setFaults({ 'assets.ListAssets': { upstream502: { next: 1 } } });
    expect((await api(emu).asset('ListAssets', {})).body.ResponseMetadata.Error.Code).toBe('SvcCallFailed');
  });
});

describe('both dialects', () => {
  it.each(['seed', 'upstream'] as const)(
    '%s: generation takes asset:// in lower case like Asset://',
    async (dialect) => {
      const e = await start({ dialect });
      try {
        const group = await systemGroupId(e, 'AIGC');
        const { body } = await api(e).asset('CreateAsset', { GroupId: group, URL: 'https://cdn.example.com/a.png' });
        e.advanceClock(1_000);
        for (const scheme of ['asset', 'Asset', 'ASSET']) {
          const item = { type: 'image_url', image_url: { url: `${scheme}://${body.Result.Id}` }, role: 'first_frame' };
          const res = await api(e).createGeneration({ model: 'm', content: [{ type: 'text', text: 'x' }, item] });
          expect(res.status).toBe(200);
        }
        const unknown = await api(e).createGeneration({
          model: 'm',
          content: [{ type: 'image_url', image_url: { url: 'asset://nope' } }],
        });
        expect(unknown.status).toBe(400);
      } finally {
        await e.close();
      }
    },
  );

  it.each(['seed', 'upstream'] as const)(
    '%s: the erase paths carry the configured path word; svc is then unknown',
    async (dialect) => {
      const e = await start({ dialect, pathWord: 'acme' });
      try {
        const { videoUrl } = await generatedVideo(e);
        const post = (path: string) =>
          fetch(`${e.url}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ video_url: videoUrl }),
          });
        expect((await post('/api/v1/svc-tools/svc-erase-video-subtitle-pro')).status).toBe(404);
        const created = await post('/api/v1/acme-tools/acme-erase-video-subtitle-pro');
        expect(created.status).toBe(200);
        const { task_id } = (await created.json()) as { task_id: string };
        const get = (word: string) =>
          fetch(`${e.url}/api/v1/${word}-tasks/${task_id}`, { headers: { authorization: `Bearer ${API_KEY}` } });
        expect((await get('acme')).status).toBe(200);
        expect((await get('svc')).status).toBe(404);
      } finally {
        await e.close();
      }
    },
  );

  it('refuses an unknown dialect and a path word that is not one path-safe token', async () => {
    await expect(start({ dialect: 'ark' as never })).rejects.toThrow(/dialect must be seed or upstream/);
    await expect(start({ pathWord: 'a/b' })).rejects.toThrow(/pathWord must be letters, digits/);
  });
});
