import type { RunningEmulator } from '../../src/emulator';
import { api, prompt, start, T0 } from './helpers';
import { API_KEY } from '../support/emulator';

const SECRET_KEY = 'sk-very-secret-key-111';
const SECRET_TOKEN_A = 'tok-very-secret-aaa';
const SECRET_TOKEN_B = 'tok-very-secret-bbb';
const WRONG_SECRET = 'tok-wrong-but-still-secret';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ apiKeys: [SECRET_KEY], accessTokens: [SECRET_TOKEN_A, SECRET_TOKEN_B] });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('inspection API', () => {
  it('never shows keys, tokens or URL signatures — in state, requests or inspect()', async () => {
    const c = api(emu);
    expect((await c.createGeneration(prompt('a'), API_KEY)).status).toBe(401); // defaults replaced
    const created = await c.createGeneration(prompt('a'), SECRET_KEY);
    await c.createGeneration(prompt('a'), WRONG_SECRET);
    emu.advanceClock(3_000);
    const url = (await c.getGeneration(created.body.id, SECRET_KEY)).body.video_url as string;
    await fetch(url);
    await c.createErase({ video_url: url }, { 'x-trace-id': 'trace-visible' }, SECRET_KEY);
    await c.asset('CreateAssetGroup', { Name: 'g' }, SECRET_TOKEN_A, { 'x-track-id': 'track-visible' });
    await c.asset('ListAssetGroups', {}, WRONG_SECRET);
    await c.review('async', { images: ['https://e.com/a.png'] }, SECRET_TOKEN_B);

    const signature = new URL(url).searchParams.get('signature')!;
    const state = JSON.stringify((await c.admin('GET', 'state')).body);
    const requests = JSON.stringify((await c.admin('GET', 'requests')).body);
    const inspected = JSON.stringify(emu.inspect());
    for (const text of [state, requests, inspected]) {
      for (const secret of [SECRET_KEY, SECRET_TOKEN_A, SECRET_TOKEN_B, WRONG_SECRET, signature]) {
        expect(text).not.toContain(secret);
      }
    }
    expect(requests).toContain('trace-visible');
    expect(requests).toContain('track-visible');
    expect(requests).toContain('signature=REDACTED');
  });

  it('lists every resource with owner, state, timestamps and what was given at creation', async () => {
    const c = api(emu);
    const gen = await c.createGeneration(prompt('hello', { callback_url: 'https://hooks.example.com/g' }), SECRET_KEY);
    await c.asset('CreateAssetGroup', { Name: 'named-by-client' }, SECRET_TOKEN_A, { 'x-track-id': 'trk-1' });
    const state = (await c.admin('GET', 'state')).body;
    expect(state.requests).toBeUndefined();
    expect(state.generationTasks).toEqual([
      expect.objectContaining({
        id: gen.body.id,
        owner: 'key#1',
        status: 'queued',
        callbackUrl: 'https://hooks.example.com/g',
        createdAt: new Date(T0).toISOString(),
        history: [{ status: 'queued', at: new Date(T0).toISOString() }],
      }),
    ]);
    expect(state.groups.filter((g: any) => g.owner === 'user#1').map((g: any) => g.Name)).toEqual([
      'default',
      'real_person',
      'named-by-client',
    ]);
    expect(state.groups.find((g: any) => g.Name === 'named-by-client')).toMatchObject({
      trackId: 'trk-1',
      GroupType: 'AIGC',
    });
  });

  it('logs each request with endpoint, action, status, ids and faults', async () => {
    const c = api(emu);
    emu.setFaults({ 'assets.ListAssets': { upstream502: { next: 1 } } });
    await c.asset('ListAssets', {}, SECRET_TOKEN_A, { 'x-track-id': 't-9' });
    await c.createGeneration(prompt('x', { callback_url: 'https://h.example.com/1' }), SECRET_KEY);
    const { requests } = (await c.admin('GET', 'requests')).body;
    expect(requests).toEqual([
      expect.objectContaining({
        seq: 1,
        method: 'POST',
        path: '/api/asset-management?Action=ListAssets',
        endpoint: 'assets.ListAssets',
        action: 'ListAssets',
        status: 502,
        trackId: 't-9',
        faults: ['upstream502'],
      }),
      expect.objectContaining({
        seq: 2,
        endpoint: 'generation.create',
        status: 200,
        principal: 'key#1',
        callbackUrl: 'https://h.example.com/1',
      }),
    ]);
    expect((await c.admin('GET', 'requests?since=1')).body.requests.map((r: any) => r.seq)).toEqual([2]);
  });

  it('advances the clock, resets everything, and reports health', async () => {
    const c = api(emu);
    await c.createGeneration(prompt('x'), SECRET_KEY);
    const moved = await c.admin('POST', 'clock', { advanceMs: 3_000 });
    expect(moved.body).toEqual({ now: new Date(T0 + 3_000).toISOString(), nowMs: T0 + 3_000 });
    expect(emu.inspect().generationTasks[0].status).toBe('succeeded');
    expect((await c.admin('POST', 'clock', { advanceMs: -1 })).status).toBe(400);

    emu.setFaults({ '*': { upstream502: { probability: 1 } } });
    expect((await c.admin('POST', 'reset')).status).toBe(200);
    const after = emu.inspect();
    expect(after).toMatchObject({ generationTasks: [], requests: [], faults: {}, nowMs: T0 });
    expect(after.groups).toHaveLength(4); // two system groups per user, re-made
    expect(after.counters.requests).toBe(0);
    expect((await c.admin('GET', 'health')).body).toEqual({ ok: true });
    expect((await c.admin('GET', 'nothing-here')).status).toBe(404);
  });
});

describe('other paths', () => {
  it('answers 501 for entry points the spec names only by path, 404 for unknown, 405 for a wrong method', async () => {
    for (const path of [
      '/v1/chat/completions',
      '/kling/v1/videos/text2video/abc',
      '/v1/videos/v1',
      '/v1beta/models/m:generateContent',
    ]) {
      const res = await fetch(`${emu.url}${path}`, { method: 'POST' });
      expect(res.status).toBe(501);
    }
    expect((await fetch(`${emu.url}/nope`)).status).toBe(404);
    expect((await fetch(`${emu.url}/v1/task/create`)).status).toBe(405);
    const assetGet = await fetch(`${emu.url}/api/asset-management?Action=ListAssetGroups`, {
      headers: { 'x-access-token': SECRET_TOKEN_A },
    });
    expect(assetGet.status).toBe(405);
  });
});
