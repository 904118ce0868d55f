import type { RunningEmulator } from '../../src/emulator';
import { api, generatedVideo, start } from './helpers';
import { startServer } from '../support/http-server';
import { SOON, until } from '../support/poll';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('erase happy path', () => {
  it('walks SUBMITTED → QUEUED → IN_PROGRESS → SUCCESS and serves an erased video', async () => {
    const { videoUrl } = await generatedVideo(emu);
    const created = await api(emu).createErase({ video_url: videoUrl }, { 'x-trace-id': 'trace-0001' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ task_id: expect.stringMatching(/^erase-/), request_id: 'trace-0001' });
    const id = created.body.task_id;
    const states: string[] = [];
    for (const step of [0, 500, 500, 1_000]) {
      emu.advanceClock(step);
      states.push((await api(emu).getErase(id)).body.status);
    }
    expect(states).toEqual(['SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS']);

    const done = (await api(emu).getErase(id)).body;
    expect(Object.keys(done).sort()).toEqual(['request_id', 'status', 'task_id', 'video_url']);
    const erased = Buffer.from(await (await fetch(done.video_url)).arrayBuffer());
    const original = Buffer.from(await (await fetch(videoUrl)).arrayBuffer());
    expect(erased.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(erased.equals(original)).toBe(false);
  });

  it('generates a 32-hex request_id when no X-Trace-ID is sent', async () => {
    const { videoUrl } = await generatedVideo(emu);
    const created = await api(emu).createErase({ video_url: videoUrl });
    expect(created.body.request_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('fails when the source prompt holds the fail-erase marker, with fail_reason', async () => {
    const { videoUrl } = await generatedVideo(emu, 'a sunset, fail-erase');
    const { body } = await api(emu).createErase({ video_url: videoUrl });
    emu.advanceClock(2_000);
    const done = (await api(emu).getErase(body.task_id)).body;
    expect(done).toMatchObject({ status: 'FAILURE', fail_reason: expect.stringContaining('fail-erase') });
    expect(done.video_url).toBeUndefined();
  });
});

describe('erase callbacks', () => {
  it('calls back once, on the terminal state, with the query object; body callback_url wins', async () => {
    const rx = await startServer();
    try {
      const { videoUrl } = await generatedVideo(emu);
      const { body } = await api(emu).createErase(
        { video_url: videoUrl, callback_url: `${rx.url}/from-body` },
        { 'x-callback-url': `${rx.url}/from-header` },
      );
      emu.advanceClock(500);
      emu.advanceClock(500);
      emu.advanceClock(1_000);
      await until('a callback received', () => rx.requests.length >= 1, SOON);
      await new Promise((r) => setTimeout(r, 50));
      expect(rx.requests).toHaveLength(1);
      expect(rx.requests[0].url).toBe('/from-body');
      expect(JSON.parse(rx.requests[0].body)).toEqual((await api(emu).getErase(body.task_id)).body);
      expect(emu.inspect().eraseTasks[0]).toMatchObject({ callbackSource: 'body', callbackUrl: `${rx.url}/from-body` });
    } finally {
      await rx.close();
    }
  });

  it('uses X-Callback-URL when the body has none', async () => {
    const rx = await startServer();
    try {
      const { videoUrl } = await generatedVideo(emu, 'fail-erase please');
      await api(emu).createErase({ video_url: videoUrl }, { 'x-callback-url': `${rx.url}/hdr` });
      emu.advanceClock(2_000);
      await until('a callback received', () => rx.requests.length >= 1, SOON);
      expect(rx.requests[0].url).toBe('/hdr');
      expect(JSON.parse(rx.requests[0].body)).toMatchObject({ status: 'FAILURE', fail_reason: expect.any(String) });
    } finally {
      await rx.close();
    }
  });
});

describe('erase refusals', () => {
  it.each([
    ['absent', null],
    ['invalid', 'wrong-key'],
  ])('answers 401 when the API key is %s', async (_label, key) => {
    const { videoUrl } = await generatedVideo(emu);
    expect((await api(emu).createErase({ video_url: videoUrl }, {}, key)).status).toBe(401);
    expect((await api(emu).getErase('erase-x', key)).status).toBe(401);
  });

  it('refuses empty and malformed video_url', async () => {
    for (const body of [{}, { video_url: '' }, { video_url: null }]) {
      const res = await api(emu).createErase(body);
      expect(res).toMatchObject({ status: 400, body: { code: 400, message: 'video_url is required' } });
    }
    for (const video_url of ['not a url', 'ftp://x/y.mp4', 42]) {
      const res = await api(emu).createErase({ video_url });
      expect(res).toMatchObject({ status: 400, body: { message: expect.stringMatching(/malformed/) } });
    }
  });

  it('refuses re-hosted copies, erased outputs, unsigned, tampered and foreign URLs', async () => {
    const { videoUrl } = await generatedVideo(emu);
    const url = new URL(videoUrl);
    const rehosted = videoUrl.replace(url.host, 'cdn.example.com');
    const unsigned = `${url.origin}${url.pathname}`;
    const tampered = videoUrl.replace(/signature=[0-9a-f]{4}/, 'signature=0000');
    const unknownTask = videoUrl.replace(/cgt-[0-9a-f]+/, 'cgt-000000000000000000000000');
    for (const bad of [rehosted, unsigned, tampered, unknownTask, 'https://example.com/video.mp4']) {
      const res = await api(emu).createErase({ video_url: bad });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/not an original URL/);
    }
    const { body } = await api(emu).createErase({ video_url: videoUrl });
    emu.advanceClock(2_000);
    const erasedUrl = (await api(emu).getErase(body.task_id)).body.video_url;
    const res = await api(emu).createErase({ video_url: erasedUrl });
    expect(res).toMatchObject({ status: 400, body: { message: expect.stringMatching(/processed/) } });
  });

  it('refuses an original URL once 24 hours have passed since generation', async () => {
    const { videoUrl } = await generatedVideo(emu);
    emu.advanceClock(24 * 3600 * 1000 - 1);
    expect((await api(emu).createErase({ video_url: videoUrl })).status).toBe(200);
    emu.advanceClock(1);
    const late = await api(emu).createErase({ video_url: videoUrl });
    expect(late).toMatchObject({ status: 400, body: { message: expect.stringMatching(/expired.*24 hours/) } });
  });

  it('refuses a malformed callback address', async () => {
    const { videoUrl } = await generatedVideo(emu);
    expect((await api(emu).createErase({ video_url: videoUrl, callback_url: 'nope' })).status).toBe(400);
    const res = await api(emu).createErase({ video_url: videoUrl }, { 'x-callback-url': 'nope' });
    expect(res).toMatchObject({ status: 400, body: { message: expect.stringMatching(/X-Callback-URL/) } });
  });

  it('answers 502 "video processing failed" under the upstream502 fault, creating nothing', async () => {
    const { videoUrl } = await generatedVideo(emu);
    emu.setFaults({ 'erase.create': { upstream502: { next: 1 } } });
    const res = await api(emu).createErase({ video_url: videoUrl });
    expect(res).toMatchObject({ status: 502, body: { code: 502, message: 'video processing failed' } });
    expect(emu.inspect().eraseTasks).toHaveLength(0);
    expect((await api(emu).createErase({ video_url: videoUrl })).status).toBe(200);
  });

  it('answers 404 for an unknown task', async () => {
    expect((await api(emu).getErase('erase-unknown')).status).toBe(404);
  });
});
