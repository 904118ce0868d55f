import { GenerationCallbackSchema, GenerationTaskSchema } from '../../src/vendor-api/assumed-shapes';
import type { RunningEmulator } from '../../src/emulator';
import { api, prompt, start, T0 } from './helpers';
import { API_KEY, USER_1 } from '../support/emulator';
import { startServer } from '../support/http-server';
import { SOON, until } from '../support/poll';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('generation create and query', () => {
  it('walks queued → running → succeeded with the assumed query shape', async () => {
    const created = await api(emu).createGeneration(prompt('a red fox'));
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(/^cgt-/) });
    const id = created.body.id;

    const queued = await api(emu).getGeneration(id);
    expect(GenerationTaskSchema.parse(queued.body)).toMatchObject({ id, status: 'queued', created_at: T0 / 1000 });
    expect(queued.body.video_url).toBeUndefined();

    emu.advanceClock(1_000);
    expect((await api(emu).getGeneration(id)).body.status).toBe('running');

    emu.advanceClock(2_000);
    const done = GenerationTaskSchema.parse((await api(emu).getGeneration(id)).body);
    expect(done.status).toBe('succeeded');
    expect(done.finished_at).toBe(T0 / 1000 + 3);
    const video = new URL(done.video_url!);
    expect(video.origin).toBe(emu.url);
    expect(video.pathname).toBe(`/media/generated/${id}.mp4`);
    expect(Number(video.searchParams.get('expires'))).toBe(done.finished_at! + 24 * 3600);
    expect(video.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('fails a prompt holding the fail-generation marker, with a fail_reason', async () => {
    const { body } = await api(emu).createGeneration(prompt('please fail-generation now'));
    emu.advanceClock(3_000);
    const done = (await api(emu).getGeneration(body.id)).body;
    expect(done).toMatchObject({ status: 'failed', fail_reason: expect.stringContaining('fail-generation') });
    expect(done.video_url).toBeUndefined();
  });

  it('sends a callback on every state change, each the query object', async () => {
    const rx = await startServer();
    try {
      const { body } = await api(emu).createGeneration(prompt('a bird', { callback_url: `${rx.url}/cb/gen-1` }));
      emu.advanceClock(1_000);
      emu.advanceClock(2_000);
      await until('3 callbacks delivered', () => emu.inspect().counters.callbacks.delivered >= 3, SOON);
      expect(rx.requests.map((r) => JSON.parse(r.body).status)).toEqual(['queued', 'running', 'succeeded']);
      for (const r of rx.requests) {
        expect(r.url).toBe('/cb/gen-1');
        expect(GenerationCallbackSchema.parse(JSON.parse(r.body)).id).toBe(body.id);
      }
      expect(JSON.parse(rx.requests[2].body)).toEqual((await api(emu).getGeneration(body.id)).body);
      expect(emu.inspect().counters.callbacks).toMatchObject({ sent: 3, delivered: 3, failed: 0 });
    } finally {
      await rx.close();
    }
  });

  it('records a callback that cannot be delivered, without failing the task', async () => {
    const { body } = await api(emu).createGeneration(prompt('x', { callback_url: 'http://127.0.0.1:9/nowhere' }));
    await until('a failed delivery', () => emu.inspect().counters.callbacks.failed >= 1, SOON);
    const [delivery] = emu.inspect().callbacks;
    expect(delivery).toMatchObject({
      resourceId: body.id,
      state: 'queued',
      outcome: 'failed',
      error: expect.any(String),
    });
  });

  it.each([
    ['no Authorization header', null],
    ['an unknown key', 'not-a-key'],
  ])('answers 401 for %s, on create and query', async (_label, key) => {
    const created = await api(emu).createGeneration(prompt('x'), key);
    expect(created.status).toBe(401);
    expect(created.body).toEqual({ code: 401, message: expect.any(String) });
    const { body } = await api(emu).createGeneration(prompt('x'));
    expect((await api(emu).getGeneration(body.id, key)).status).toBe(401);
    expect(emu.inspect().generationTasks).toHaveLength(1);
  });

  it('answers 404 for an unknown task', async () => {
    const res = await api(emu).getGeneration('cgt-nope');
    expect(res.status).toBe(404);
  });
});

describe('generation validation (400)', () => {
  const img = (url: string, role?: string) => ({ type: 'image_url', image_url: { url }, ...(role ? { role } : {}) });
  const cases: [string, unknown, RegExp][] = [
    ['a body that is not JSON', '{not json', /JSON object/],
    ['a missing model', { content: [{ type: 'text', text: 'x' }] }, /model/],
    ['an empty model', { model: ' ', content: [{ type: 'text', text: 'x' }] }, /model/],
    ['missing content', { model: 'm' }, /content/],
    ['empty content', { model: 'm', content: [] }, /content/],
    ['an unknown item type', { model: 'm', content: [{ type: 'pdf_url' }] }, /content\[0\]\.type/],
    ['a text item without text', { model: 'm', content: [{ type: 'text' }] }, /content\[0\]\.text/],
    [
      'a media item without url',
      { model: 'm', content: [{ type: 'image_url', image_url: {} }] },
      /image_url\.url is required/,
    ],
    ['a base64 data: image', { model: 'm', content: [img('data:image/png;base64,iVBORw0KGgo=')] }, /base64/],
    [
      'raw base64 instead of a URL',
      { model: 'm', content: [img('iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB')] },
      /public http\(s\) URL/,
    ],
    ['a loopback URL', { model: 'm', content: [img('http://localhost/cat.png')] }, /public/],
    ['a private-network URL', { model: 'm', content: [img('http://192.168.1.5/cat.png')] }, /public/],
    ['an ftp URL', { model: 'm', content: [img('ftp://example.com/cat.png')] }, /public/],
    ['an unknown Asset:// id', { model: 'm', content: [img('Asset://asset-missing')] }, /unknown asset/],
    [
      'a role of another type',
      { model: 'm', content: [img('https://example.com/a.png', 'reference_video')] },
      /not allowed/,
    ],
    [
      'an empty role',
      { model: 'm', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' }, role: '' }] },
      /role must be a non-empty string/,
    ],
    [
      'two first frames',
      { model: 'm', content: [img('https://e.com/a.png', 'first_frame'), img('https://e.com/b.png', 'first_frame')] },
      /at most one/,
    ],
    ['an empty ratio', prompt('x', { ratio: '' }), /ratio/],
    ['a non-integer seed', prompt('x', { seed: 1.5 }), /seed/],
    ['a string duration', prompt('x', { duration: '5' }), /duration/],
    ['a numeric resolution', prompt('x', { resolution: 720 }), /resolution/],
    ['a zero duration', prompt('x', { duration: 0 }), /duration/],
    ['a non-boolean watermark', prompt('x', { watermark: 'yes' }), /watermark/],
    ['a malformed callback_url', prompt('x', { callback_url: 'not a url' }), /callback_url/],
  ];
  it.each(cases)('refuses %s', async (_label, body, message) => {
    const res = await api(emu).createGeneration(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(emu.inspect().generationTasks).toHaveLength(0);
  });

  it.each([
    ['ratio adaptive', prompt('x', { ratio: 'adaptive' })],
    ['ratio keep_ratio', prompt('x', { ratio: 'keep_ratio' })],
    ['resolution 4k', prompt('x', { resolution: '4k' })],
    ['duration -1 (automatic)', prompt('x', { duration: -1 })],
    ['a role the spec does not name', { model: 'm', content: [img('https://example.com/a.png', 'hero_frame')] }],
  ])('accepts what the spec does not forbid: %s', async (_label, body) => {
    const res = await api(emu).createGeneration(body);
    expect(res.status).toBe(200);
  });

  it('accepts every documented field and public media of each type', async () => {
    const res = await api(emu).createGeneration({
      model: 'm',
      content: [
        { type: 'text', text: 'dance' },
        img('https://example.com/first.png', 'first_frame'),
        img('https://example.com/last.png', 'last_frame'),
        { type: 'video_url', video_url: { url: 'https://example.com/ref.mp4' }, role: 'reference_video' },
        { type: 'audio_url', audio_url: { url: 'https://example.com/ref.mp3' }, role: 'reference_audio' },
      ],
      generate_audio: true,
      ratio: '16:9',
      duration: 5,
      watermark: false,
      resolution: '720p',
      seed: 42,
    });
    expect(res.status).toBe(200);
  });

  it('accepts an Asset:// address only once the asset is Active and of the item type', async () => {
    const groups = await api(emu).asset('ListAssetGroups', {}, USER_1);
    const GroupId = groups.body.Result.AssetGroups[0].Id;
    const asset = await api(emu).asset('CreateAsset', {
      GroupId,
      URL: 'https://example.com/face.png',
      AssetType: 'Image',
    });
    const ref = `Asset://${asset.body.Result.Id}`;
    const pending = await api(emu).createGeneration({ model: 'm', content: [img(ref, 'first_frame')] });
    expect(pending.status).toBe(400);
    expect(pending.body.message).toMatch(/Pending, not Active/);

    emu.advanceClock(1_000);
    expect((await api(emu).createGeneration({ model: 'm', content: [img(ref, 'first_frame')] })).status).toBe(200);
    const wrongType = await api(emu).createGeneration({
      model: 'm',
      content: [{ type: 'video_url', video_url: { url: ref } }],
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/type Image, expected Video/);
  });

  it('refuses a body declared as something other than JSON (415)', async () => {
    const res = await api(emu).createGeneration(JSON.stringify(prompt('x')), API_KEY, { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
  });
});

describe('generated video URL', () => {
  async function succeeded() {
    const { body } = await api(emu).createGeneration(prompt('x'));
    emu.advanceClock(3_000);
    return (await api(emu).getGeneration(body.id)).body.video_url as string;
  }

  it('serves a real MP4, whole and by byte range', async () => {
    const url = await succeeded();
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(Number(whole.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    const part = await fetch(url, { headers: { range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(0, 100));
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
  });

  it('refuses a tampered or unsigned URL (403) and an expired one (410)', async () => {
    const url = new URL(await succeeded());
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(tampered)).status).toBe(403);
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBe(403);

    emu.advanceClock(24 * 3600 * 1000 - 1_000);
    expect((await fetch(url)).status).toBe(200);
    emu.advanceClock(1_000);
    expect((await fetch(url)).status).toBe(410);
  });
});

describe('admin cancel', () => {
  it('moves a running task to cancelled and calls back; a finished one answers 409', async () => {
    const rx = await startServer();
    try {
      const { body } = await api(emu).createGeneration(prompt('x', { callback_url: rx.url }));
      const cancelled = await api(emu).admin('POST', `generation/${body.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', finished_at: T0 / 1000 });
      emu.advanceClock(10_000);
      expect((await api(emu).getGeneration(body.id)).body.status).toBe('cancelled');
      expect((await api(emu).admin('POST', `generation/${body.id}/cancel`)).status).toBe(409);
      await until('2 callbacks received', () => rx.requests.length >= 2, SOON);
      expect(rx.requests.map((r) => JSON.parse(r.body).status)).toEqual(['queued', 'cancelled']);
    } finally {
      await rx.close();
    }
  });
});
