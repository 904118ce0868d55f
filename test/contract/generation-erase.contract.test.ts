/** Generation (4.1, 7.1) and erasure (4.2, 4.3, 6, 7.2) through the client against the emulator. */
import { GenerationCallbackSchema } from '../../src/vendor-api/assumed-shapes';
import {
  AmbiguousError,
  MissingCredentialError,
  NotFoundError,
  RejectedError,
  UnauthorizedError,
  UpstreamFailedError,
} from '../../src/vendor-api/errors';
import { EraseCallbackSchema } from '../../src/vendor-api/schemas/erase';
import { API_KEY } from '../support/emulator';
import { SOON, until } from '../support/poll';
import { failure, media, rawCall, useCallbackReceiver, useEmulator } from './harness';
import { FailureType } from '../../src/failures';

const ERASE_PATH = '/api/v1/svc-tools/svc-erase-video-subtitle-pro';

const h = useEmulator();

const receiver = useCallbackReceiver();

const text = (t: string) => ({ type: 'text' as const, text: t });

async function generatedVideo(prompt = 'a cat on a boat') {
  const { id } = await h.client.generation.create({ model: 'm1', content: [text(prompt)] });
  h.emu.advanceClock(1_000);
  const task = await h.client.generation.get(id);
  expect(task.status).toBe(prompt.includes('fail-generation') ? 'failed' : 'succeeded');
  return task;
}

describe('7.1 generation create errors', () => {
  it.each([
    [
      [text('x'), { type: 'image_url', image_url: { url: 'http://127.0.0.1/private.png' } }],
      'content[1].image_url.url',
    ],
    [[{ type: 'image_url', image_url: { url: 'Asset://no-such-asset' } }], 'content[0].image_url.url'],
    [[{ type: 'video_url', video_url: { url: media('v.mp4') }, role: 'first_frame' }], 'content[0].role'],
  ])('400 malformed content → RejectedError naming the field (%#)', async (content, field) => {
    const err = await failure(h.client.generation.create({ model: 'm1', content: content as never }));
    expect(err).toBeInstanceOf(RejectedError);
    expect(err).toMatchObject({ status: 400, field, endpoint: 'generation.create', retryable: false });
    expect(h.emu.inspect().generationTasks).toHaveLength(0);
  });

  it('400 malformed model / base64 media: the client refuses before sending', async () => {
    const err = await failure(
      h.client.generation.create({
        model: 'm1',
        content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
      }),
    );
    expect(err).toMatchObject({ name: FailureType.RejectedError, field: 'content[0].image_url.url' });
    expect(err.status).toBeUndefined();
    expect(h.emu.inspect().requests).toHaveLength(0);
  });

  it('401 bad Bearer token', async () => {
    const err = await failure(
      h.make({ apiKey: 'not-the-key' }).generation.create({ model: 'm1', content: [text('x')] }),
    );
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err).toMatchObject({ status: 401, retryable: false });
    expect(err.message).not.toContain('not-the-key');
  });

  it('500 → AmbiguousError, and the task may indeed exist', async () => {
    h.emu.setFaults({ 'generation.create': { error500AfterCreate: { next: 1 } } });
    const err = await failure(h.client.generation.create({ model: 'm1', content: [text('x')] }));
    expect(err).toBeInstanceOf(AmbiguousError);
    expect(err).toMatchObject({ status: 500, retryable: false });
    expect(h.emu.inspect().generationTasks).toHaveLength(1);
  });

  it('timeout → AmbiguousError, and the task exists', async () => {
    h.emu.setFaults({ 'generation.create': { delayAfterCreate: { next: 1, ms: 2_000 } } });
    const err = await failure(
      h.client.generation.create({ model: 'm1', content: [text('x')] }, { timeouts: { headersMs: 200 } }),
    );
    expect(err).toBeInstanceOf(AmbiguousError);
    expect(err.message).toMatch(/timed out waiting for response headers/);
    expect(h.emu.inspect().generationTasks).toHaveLength(1);
  });
});

describe('generation task and callback (assumed shapes)', () => {
  it('queued → running → succeeded with video_url; callbacks carry the query object', async () => {
    const cb = `${receiver.url}/cb/gen`;
    const { id } = await h.client.generation.create({
      model: 'm1',
      content: [text('x'), { type: 'image_url', image_url: { url: media('first.png') }, role: 'first_frame' }],
      ratio: '16:9',
      duration: 5,
      resolution: '720p',
      seed: 7,
      watermark: false,
      generate_audio: true,
      callback_url: cb,
    });
    // The real clock runs too (a loaded machine may pass a state between two queries):
    // queries see the states in order, and the task's own history holds all three.
    const order = ['queued', 'running', 'succeeded'];
    const first = (await h.client.generation.get(id)).status;
    h.emu.advanceClock(150);
    const second = (await h.client.generation.get(id)).status;
    expect(order.indexOf(first)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(second)).toBeGreaterThanOrEqual(order.indexOf(first));
    h.emu.advanceClock(1_000);
    const done = await h.client.generation.get(id);
    expect(h.emu.inspect().generationTasks[0]?.history.map((t) => t.status)).toEqual(order);
    expect(done).toMatchObject({ id, status: 'succeeded', video_url: expect.stringMatching(/^http/) });
    await until('3 callbacks received', () => receiver.requests.length >= 3, SOON);
    for (const r of receiver.requests) {
      expect(r.url).toBe('/cb/gen');
      expect(GenerationCallbackSchema.parse(JSON.parse(r.body)).id).toBe(id);
    }
  });

  it('a failing task ends failed with fail_reason', async () => {
    const task = await generatedVideo('please fail-generation');
    expect(task.fail_reason).toEqual(expect.any(String));
  });

  it('an unknown task id is a 404 → NotFoundError (a RejectedError), not retryable', async () => {
    const err = await failure(h.client.generation.get('nope'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toBeInstanceOf(RejectedError);
    expect(err).toMatchObject({ name: FailureType.NotFoundError, status: 404, retryable: false });
  });
});

describe('7.2 erase errors', () => {
  it('400 empty video_url: refused by the client before sending', async () => {
    const err = await failure(h.client.erase.create({ video_url: '' }));
    expect(err).toMatchObject({ name: FailureType.RejectedError, field: 'video_url', status: undefined });
    expect(h.emu.inspect().requests).toHaveLength(0);
  });

  it('400 empty video_url: the vendor agrees when sent anyway', async () => {
    const err = await failure(
      rawCall(h, {
        endpoint: 'erase.create',
        method: 'POST',
        path: ERASE_PATH,
        headers: { authorization: `Bearer ${API_KEY}` },
        body: { video_url: '' },
        knownFields: ['video_url', 'callback_url'],
      }),
    );
    expect(err).toMatchObject({ name: FailureType.RejectedError, status: 400, field: 'video_url' });
  });

  it('400 invalid video_url from the vendor names video_url', async () => {
    const err = await failure(h.client.erase.create({ video_url: media('not-generated-here.mp4') }));
    expect(err).toBeInstanceOf(RejectedError);
    expect(err).toMatchObject({ status: 400, field: 'video_url', endpoint: 'erase.create' });
  });

  it('401 invalid API key', async () => {
    const err = await failure(h.make({ apiKey: 'bad' }).erase.get('x'));
    expect(err).toBeInstanceOf(UnauthorizedError);
  });

  it('401 absent API key: the client will not send; the raw HTTP layer sees 401', async () => {
    const err = await failure(h.make({ apiKey: '' }).erase.create({ video_url: media('v.mp4') }));
    expect(err).toBeInstanceOf(MissingCredentialError);
    const raw = await failure(
      rawCall(h, { endpoint: 'erase.create', method: 'POST', path: ERASE_PATH, body: { video_url: media('v.mp4') } }),
    );
    expect(raw).toBeInstanceOf(UnauthorizedError);
  });

  it('502 video processing failed → UpstreamFailedError, not retryable with the same URL', async () => {
    const video = await generatedVideo();
    h.emu.setFaults({ 'erase.create': { upstream502: { next: 1 } } });
    const err = await failure(h.client.erase.create({ video_url: video.video_url! }));
    expect(err).toBeInstanceOf(UpstreamFailedError);
    expect(err).toMatchObject({ status: 502, endpoint: 'erase.create', field: 'video_url', retryable: false });
  });
});

describe('erase rules', () => {
  it('only the original URL of our own generation: re-hosted and processed copies are refused', async () => {
    const video = await generatedVideo();
    const rehosted = video.video_url!.replace(/^http:\/\/[^/]+/, 'https://mirror.example.com');
    expect(await failure(h.client.erase.create({ video_url: rehosted }))).toMatchObject({
      status: 400,
      field: 'video_url',
    });
    const { task_id } = await h.client.erase.create({ video_url: video.video_url! });
    h.emu.advanceClock(1_000);
    const erased = await h.client.erase.get(task_id);
    expect(erased.status).toBe('SUCCESS');
    expect(await failure(h.client.erase.create({ video_url: erased.video_url! }))).toMatchObject({
      name: FailureType.RejectedError,
      field: 'video_url',
    });
  });

  it('the original URL is valid 24 hours from generation', async () => {
    const video = await generatedVideo();
    h.emu.advanceClock(23 * 3600_000);
    await expect(h.client.erase.create({ video_url: video.video_url! })).resolves.toMatchObject({
      task_id: expect.any(String),
    });
    h.emu.advanceClock(3600_000);
    const err = await failure(h.client.erase.create({ video_url: video.video_url! }));
    expect(err).toMatchObject({ name: FailureType.RejectedError, status: 400, field: 'video_url' });
    expect(err.message).toMatch(/24 hours/);
  });

  it('SUBMITTED → QUEUED → IN_PROGRESS → SUCCESS; X-Trace-ID is fresh per request and logged', async () => {
    const video = await generatedVideo();
    const traces: string[] = [];
    const created = await h.client.erase.create(
      { video_url: video.video_url! },
      { onResponse: (m) => traces.push(m.traceId!) },
    );
    expect(created).toEqual({ task_id: expect.any(String), request_id: expect.any(String) });
    expect(traces[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(h.emu.inspect().eraseTasks[0]?.traceId).toBe(traces[0]);
    // The real clock runs too (a loaded machine may skip a 50 ms state between two queries):
    // queries must see the states in order, and the task's own history must hold all four.
    const order = ['SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS'];
    const seen = [(await h.client.erase.get(created.task_id)).status];
    while (seen[seen.length - 1] !== 'SUCCESS' && seen.length < 50) {
      h.emu.advanceClock(20);
      seen.push((await h.client.erase.get(created.task_id)).status);
    }
    expect(seen[0]).toBe('SUBMITTED');
    expect(seen[seen.length - 1]).toBe('SUCCESS');
    const ranks = seen.map((st) => order.indexOf(st));
    expect(ranks.every((r, i) => r >= 0 && (i === 0 || r >= ranks[i - 1]))).toBe(true);
    expect(h.emu.inspect().eraseTasks[0]?.history.map((t) => t.status)).toEqual(order);
    await h.client.erase.create({ video_url: video.video_url! }, { onResponse: (m) => traces.push(m.traceId!) });
    expect(traces[1]).not.toBe(traces[0]);
  });

  it('FAILURE carries fail_reason', async () => {
    const video = await generatedVideo('fail-erase please');
    const { task_id } = await h.client.erase.create({ video_url: video.video_url! });
    h.emu.advanceClock(1_000);
    expect(await h.client.erase.get(task_id)).toMatchObject({ status: 'FAILURE', fail_reason: expect.any(String) });
  });

  it('callback: body wins over the X-Callback-URL header; header alone works; terminal state only', async () => {
    const video = await generatedVideo();
    const both = await h.client.erase.create(
      { video_url: video.video_url!, callback_url: `${receiver.url}/cb/body` },
      { callbackUrlHeader: `${receiver.url}/cb/header` },
    );
    const headerOnly = await h.client.erase.create(
      { video_url: video.video_url! },
      { callbackUrlHeader: `${receiver.url}/cb/h2` },
    );
    const tasks = h.emu.inspect().eraseTasks;
    expect(tasks.find((t) => t.taskId === both.task_id)).toMatchObject({
      callbackSource: 'body',
      callbackUrl: `${receiver.url}/cb/body`,
    });
    expect(tasks.find((t) => t.taskId === headerOnly.task_id)).toMatchObject({ callbackSource: 'header' });
    h.emu.advanceClock(1_000);
    await until('2 callbacks received', () => receiver.requests.length >= 2, SOON);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.requests.map((r) => r.url).sort()).toEqual(['/cb/body', '/cb/h2']);
    for (const r of receiver.requests) {
      const body = EraseCallbackSchema.parse(JSON.parse(r.body));
      expect(body.status).toBe('SUCCESS');
      expect(body.video_url).toEqual(expect.any(String));
    }
  });
});
