/**
 * Where the spec says "not shown", the vendor may answer in our assumed shapes (the
 * emulator's `seed` dialect) or in the upstream's (Ark content generation, Volcengine
 * OpenAPI asset management, nulls, reseller states: the `upstream` dialect). Every test
 * runs the same calls against both, side by side: the client returns ONE shape, and the
 * wire bodies show that each alias was really exercised.
 */
import {
  ASSET_PENDING_STATES,
  ASSET_STATES,
  ERASE_STATES,
  GENERATION_STATES,
  GENERATION_TERMINAL_STATES,
} from '../../src/vendor-api/assumed-values';
import { GenerationCallbackSchema } from '../../src/vendor-api/assumed-shapes';
import {
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  RejectedError,
  toFailureInfo,
  UpstreamFailedError,
  type VendorError,
} from '../../src/vendor-api/errors';
import { httpRequest } from '../../src/vendor-api/http';
import { Agent } from 'undici';
import { API_KEY, USER_1 } from '../support/emulator';
import { SOON, until } from '../support/poll';
import { failure, media, useCallbackReceiver, useEmulator, type Harness } from './harness';
import { FailureType } from '../../src/failures';

type Dialect = 'seed' | 'upstream';
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
/** The upstream emulator (and its clients) use another path word than `svc`. */
const WORD = 'acme';

// A frozen base clock: states move only with advanceClock, so every step is deterministic.
const seed = useEmulator({ dialect: 'seed', clock: () => T0 });
const upstream = useEmulator({ dialect: 'upstream', pathWord: WORD, clock: () => T0 }, { pathWord: WORD });

/** Runs `check` against both emulators; a failure names the dialect. */
async function forBoth(check: (h: Harness, dialect: Dialect) => Promise<void>): Promise<void> {
  for (const [dialect, h] of [
    ['seed', seed],
    ['upstream', upstream],
  ] as const) {
    try {
      await check(h, dialect);
    } catch (err) {
      if (err instanceof Error) err.message = `[${dialect} dialect] ${err.message}`;
      throw err;
    }
  }
}

/** The wire body of a GET or POST, as the vendor sent it. */
async function wire(
  h: Harness,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const res = await fetch(`${h.emu.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const bearer = { authorization: `Bearer ${API_KEY}` };
const assetAction = (h: Harness, action: string, body: unknown) =>
  wire(h, `/api/asset-management?Action=${action}`, { method: 'POST', headers: { 'x-access-token': USER_1 }, body });

const text = (t: string) => ({ type: 'text' as const, text: t });

async function generation(h: Harness, prompt = 'a cat on a boat') {
  const { id } = await h.client.generation.create({ model: 'm1', content: [text(prompt)] });
  h.emu.advanceClock(1_000);
  return { id, task: await h.client.generation.get(id) };
}

const receiver = useCallbackReceiver();

describe('generation query and callback', () => {
  it('a succeeded task reads as one shape: top-level video_url (seed) or content.video_url (upstream)', async () => {
    await forBoth(async (h, dialect) => {
      const { id, task } = await generation(h);
      const common = ['id', 'status', 'video_url', 'model', 'created_at', 'updated_at'];
      expect(Object.keys(task).sort()).toEqual([...common, ...(dialect === 'seed' ? ['finished_at'] : [])].sort());
      expect(task).toMatchObject({ id, status: 'succeeded', model: 'm1', video_url: expect.stringMatching(/^http/) });
      expect(task.created_at).toBe(Math.floor(T0 / 1000));
      expect(task.updated_at).toBeGreaterThanOrEqual(task.created_at!);

      const { body } = await wire(h, `/v1/task/get/${id}`, { headers: bearer });
      if (dialect === 'upstream') {
        expect(body).toMatchObject({ content: { video_url: task.video_url }, error: null });
        expect(body).not.toHaveProperty('video_url');
        expect(body).not.toHaveProperty('finished_at');
      } else {
        expect(body).toMatchObject({ video_url: task.video_url, finished_at: task.finished_at });
      }
    });
  });

  it('a failed task: fail_reason (seed) or error {code, message} (upstream) → fail_reason and error_code', async () => {
    await forBoth(async (h, dialect) => {
      const { id, task } = await generation(h, 'please fail-generation');
      expect(task).toMatchObject({ status: 'failed', fail_reason: expect.stringContaining('fail-generation') });
      const { body } = await wire(h, `/v1/task/get/${id}`, { headers: bearer });
      if (dialect === 'upstream') {
        expect(task.error_code).toBe('OutputVideoSensitiveContentDetected');
        expect(body).toMatchObject({ content: null, error: { code: task.error_code, message: task.fail_reason } });
      } else {
        expect(body.fail_reason).toBe(task.fail_reason);
      }
    });
  });

  it('`expired` is a known, terminal state in either dialect', async () => {
    await forBoth(async (h) => {
      h.emu.setFaults({ 'generation.create': { expire: { next: 1 } } });
      const { task } = await generation(h);
      expect(task.status).toBe('expired');
      expect(task.video_url).toBeUndefined();
      expect(GENERATION_TERMINAL_STATES).toContain(task.status);
      expect(GENERATION_STATES).toContain(task.status);
    });
  });

  it('callbacks (nulls included) parse into the same shape as the query', async () => {
    await forBoth(async (h, dialect) => {
      receiver.requests.length = 0;
      const { id } = await h.client.generation.create({
        model: 'm1',
        content: [text('x')],
        callback_url: `${receiver.url}/cb`,
      });
      h.emu.advanceClock(1_000);
      const done = await h.client.generation.get(id);
      await until('3 callbacks received', () => receiver.requests.length >= 3, SOON);
      const bodies = receiver.requests.map((r) => JSON.parse(r.body));
      if (dialect === 'upstream') expect(bodies[0]).toMatchObject({ status: 'queued', content: null, error: null });
      const parsed = bodies.map((b) => GenerationCallbackSchema.parse(b));
      expect(parsed.map((p) => p.status)).toEqual(['queued', 'running', 'succeeded']);
      expect(parsed[2]).toEqual(done);
    });
  });

  it('content.last_frame_url (upstream, when the create asked for it) becomes last_frame_url', async () => {
    const created = await wire(upstream, '/v1/task/create', {
      method: 'POST',
      headers: bearer,
      body: { model: 'm1', content: [text('x')], return_last_frame: true },
    });
    upstream.emu.advanceClock(1_000);
    const task = await upstream.client.generation.get(created.body.id);
    expect(task.last_frame_url).toMatch(/-last-frame\.png\?/);
    const frame = await fetch(task.last_frame_url!);
    expect(frame.headers.get('content-type')).toBe('image/png');
  });
});

describe('unknown states are not parse errors', () => {
  it('erase: the upstream passes through NOT_START and reports UNKNOWN once; nulls are absent', async () => {
    await forBoth(async (h, dialect) => {
      const { task: video } = await generation(h);
      const { task_id } = await h.client.erase.create({ video_url: video.video_url! });
      const seen = [(await h.client.erase.get(task_id)).status];
      const inProgress = await wire(h, `/api/v1/${dialect === 'upstream' ? WORD : 'svc'}-tasks/${task_id}`, {
        headers: bearer,
      });
      for (const step of [30, 30, 50, 100]) {
        h.emu.advanceClock(step);
        seen.push((await h.client.erase.get(task_id)).status);
      }
      if (dialect === 'upstream') {
        expect(seen).toEqual(['NOT_START', 'UNKNOWN', 'QUEUED', 'IN_PROGRESS', 'SUCCESS']);
        expect(inProgress.body).toMatchObject({ video_url: null, fail_reason: null });
        expect(ERASE_STATES).not.toContain('NOT_START');
        expect(ERASE_STATES).not.toContain('UNKNOWN');
      } else {
        expect(seen).toEqual(['SUBMITTED', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS']);
      }
      expect((await h.client.erase.get(task_id)).video_url).toMatch(/^http/);
    });
  });

  it('a task fault reports a made-up state for the first K queries, or forever, on every kind of task', async () => {
    await forBoth(async (h) => {
      h.emu.setFaults({
        'generation.create': { unknownState: { next: 1, state: 'weird', queries: 2 } },
        'erase.create': { unknownState: { next: 1, state: 'NOT_START' } },
        'review.async': { unknownState: { next: 1, state: 'queueing', queries: 1 } },
        'assets.CreateAsset': { unknownState: { next: 1, state: 'Uploading', queries: 1 } },
      });
      const { id } = await h.client.generation.create({ model: 'm1', content: [text('x')] });
      h.emu.advanceClock(1_000);
      const gen = [];
      for (let i = 0; i < 3; i++) gen.push((await h.client.generation.get(id)).status);
      expect(gen).toEqual(['weird', 'weird', 'succeeded']);

      const { task_id } = await h.client.erase.create({ video_url: (await h.client.generation.get(id)).video_url! });
      h.emu.advanceClock(1_000);
      expect((await h.client.erase.get(task_id)).status).toBe('NOT_START');
      expect((await h.client.erase.get(task_id)).status).toBe('NOT_START');

      const review = await h.client.review.submitAsync({ images: [media('a.png')] });
      expect((await h.client.review.getTask(review.task_id)).status).toBe('queueing');
      h.emu.advanceClock(1_500);
      expect((await h.client.review.getTask(review.task_id)).status).toBe('completed');

      const { AssetGroups } = await h.client.assets.listAssetGroups();
      const asset = await h.client.assets.createAsset({ GroupId: AssetGroups[0].Id, URL: media('b.png') });
      expect((await h.client.assets.getAsset({ Id: asset.Id })).Status).toBe('Uploading');
      expect(ASSET_STATES).not.toContain('Uploading');
    });
  });
});

describe('review: null is absent, asset:// in any case', () => {
  it('pending result and passed items with null members parse; lowercase asset:// works in generation', async () => {
    await forBoth(async (h, dialect) => {
      const { task_id } = await h.client.review.submitAsync({ images: [media('a.png'), media('reject-b.png')] });
      const pending = await wire(h, `/api/task/${task_id}`, {
        headers: { 'x-access-token': USER_1, 'x-track-id': 'a'.repeat(32) },
      });
      if (dialect === 'upstream') expect(pending.body.result).toBeNull();
      h.emu.advanceClock(1_500);
      const task = await h.client.review.getTask(task_id);
      expect(task.status).toBe('completed');
      const [ok, rejected] = task.result!.items;
      expect(ok.error_code).toBeUndefined();
      expect(rejected.asset_url).toBeUndefined();
      expect(ok.asset_url).toMatch(dialect === 'upstream' ? /^asset:\/\// : /^Asset:\/\//);

      const lower = ok.asset_url!.replace(/^Asset:/, 'asset:');
      const gen = await h.client.generation.create({
        model: 'm1',
        content: [text('x'), { type: 'image_url', image_url: { url: lower }, role: 'first_frame' }],
      });
      expect(gen.id).toEqual(expect.any(String));
    });
  });
});

describe('asset management, Volcengine OpenAPI style', () => {
  it('errors under ResponseMetadata.Error (no top-level Code) read like the documented body', async () => {
    await forBoth(async (h, dialect) => {
      const notOwned = await failure(h.client.assets.getAsset({ Id: 'asset-nope' }));
      expect(notOwned).toBeInstanceOf(ForbiddenError);
      expect(notOwned).toMatchObject({
        status: 403,
        vendorCode: 'AssetNotOwned',
        traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      expect(notOwned.message).toContain('not owned by this user');
      const missing = await failure(h.client.assets.invoke('CreateAssetGroup', {}, { validate: false }));
      expect(missing).toMatchObject({ name: FailureType.RejectedError, vendorCode: 'MissingField', field: 'Name' });

      const { body } = await assetAction(h, 'GetAsset', { Id: 'asset-nope' });
      if (dialect === 'upstream') {
        expect(body).not.toHaveProperty('Code');
        expect(body.ResponseMetadata.Error).toEqual({ Code: 'AssetNotOwned', Message: expect.any(String) });
      } else {
        expect(body.Code).toBe('AssetNotOwned');
      }
    });
  });

  it('Processing is pending; lists under Items with TotalCount; null URL and Description are absent', async () => {
    await forBoth(async (h, dialect) => {
      const group = await h.client.assets.createAssetGroup({ Name: 'g1' });
      const ids = [];
      for (const n of ['a', 'b', 'c'])
        ids.push((await h.client.assets.createAsset({ GroupId: group.Id, URL: media(`${n}.png`) })).Id);
      const pending = await h.client.assets.getAsset({ Id: ids[0] });
      expect(pending.Status).toBe(dialect === 'upstream' ? 'Processing' : 'Pending');
      expect(ASSET_PENDING_STATES).toContain(pending.Status);
      expect(pending.URL || undefined).toBeUndefined();

      const page = await h.client.assets.listAssets({ Filter: { GroupIds: [group.Id] }, PageSize: 2 });
      expect(page).toMatchObject({ Total: 3, Assets: [{ Id: ids[0] }, { Id: ids[1] }] });
      expect((await h.client.assets.listAllAssets({ GroupIds: [group.Id], PageSize: 1 })).map((a) => a.Id)).toEqual(
        ids,
      );
      const groups = await h.client.assets.listAssetGroups();
      expect(groups.Total).toBe(3);
      expect(await h.client.assets.findGroupByName('g1')).toMatchObject({ Id: group.Id });
      expect((await h.client.assets.getAssetGroup({ Id: group.Id })).Description || undefined).toBeUndefined();

      const listed = (await assetAction(h, 'ListAssets', { Filter: { GroupIds: [group.Id] } })).body.Result;
      if (dialect === 'upstream') {
        expect(listed).toMatchObject({ Items: expect.any(Array), TotalCount: 3 });
        expect(listed.Items[0]).toMatchObject({ Status: 'Processing', URL: expect.any(String) });
        expect((await assetAction(h, 'GetAsset', { Id: ids[0] })).body.Result.URL).toBeNull();
      } else {
        expect(listed).toMatchObject({ Assets: expect.any(Array), Total: 3 });
      }
      h.emu.advanceClock(1_000);
      expect((await h.client.assets.getAsset({ Id: ids[0] })).Status).toBe('Active');
    });
  });

  it('a 502 whose code carries the vendor word (…CallFailed) is a retryable UpstreamFailedError', async () => {
    await forBoth(async (h, dialect) => {
      h.emu.setFaults({ 'assets.ListAssets': { upstream502: { next: 1 } } });
      const err = await failure(h.client.assets.listAssets());
      expect(err).toBeInstanceOf(UpstreamFailedError);
      expect(err).toMatchObject({
        retryable: true,
        vendorCode: dialect === 'upstream' ? 'AcmeCallFailed' : 'UpstreamCallFailed',
      });
    });
  });
});

describe('the svc path word', () => {
  it('the erase paths carry the configured word; a client with another word meets 404', async () => {
    await forBoth(async (h, dialect) => {
      const { task: video } = await generation(h);
      const { task_id } = await h.client.erase.create({ video_url: video.video_url! });
      await expect(h.client.erase.get(task_id)).resolves.toMatchObject({ task_id });
      const mismatched = h.make({ pathWord: dialect === 'upstream' ? 'svc' : WORD });
      expect(await failure(mismatched.erase.create({ video_url: video.video_url! }))).toBeInstanceOf(NotFoundError);
      expect(await failure(mismatched.erase.get(task_id))).toMatchObject({
        name: FailureType.NotFoundError,
        status: 404,
      });
      const log = h.emu.inspect().requests.map((r) => r.path);
      expect(log).toContain(
        `/api/v1/${dialect === 'upstream' ? WORD : 'svc'}-tools/${dialect === 'upstream' ? WORD : 'svc'}-erase-video-subtitle-pro`,
      );
    });
  });
});

describe('errors', () => {
  it('HTTP 404 on any interface is NotFoundError; error bodies with null members still name the field', async () => {
    await forBoth(async (h, dialect) => {
      const notFound = [h.client.generation.get('nope'), h.client.erase.get('nope'), h.client.review.getTask('nope')];
      for (const p of notFound) {
        const err = await failure(p);
        expect(err).toBeInstanceOf(NotFoundError);
        expect(err).toMatchObject({
          status: 404,
          retryable: false,
          vendorCode: dialect === 'upstream' ? 'ResourceNotFound' : '404',
        });
      }
      const bad = await failure(
        h.client.generation.create({
          model: 'm',
          content: [{ type: 'image_url', image_url: { url: 'Asset://none' } }],
        }),
      );
      expect(bad).toBeInstanceOf(RejectedError);
      expect(bad).toMatchObject({ status: 400, field: 'content[0].image_url.url' });
      if (dialect === 'upstream') {
        const { body } = await wire(h, '/v1/task/get/nope', { headers: bearer });
        expect(body).toEqual({
          error: { code: 'ResourceNotFound', message: expect.any(String), param: null, type: null },
        });
      }
    });
  });

  it('read-after-write lag: a new task is "not found" for a while, then there (404, or AssetNotOwned)', async () => {
    await forBoth(async (h) => {
      const lag = { readLag: { next: 1, ms: 60_000 } };
      h.emu.setFaults({ 'generation.create': lag, 'review.async': lag, 'assets.CreateAsset': lag });
      const { id } = await h.client.generation.create({ model: 'm1', content: [text('x')] });
      const review = await h.client.review.submitAsync({ images: [media('a.png')] });
      const { AssetGroups } = await h.client.assets.listAssetGroups();
      const asset = await h.client.assets.createAsset({ GroupId: AssetGroups[0].Id, URL: media('b.png') });
      expect(await failure(h.client.generation.get(id))).toBeInstanceOf(NotFoundError);
      expect(await failure(h.client.review.getTask(review.task_id))).toBeInstanceOf(NotFoundError);
      const notOwned = await failure(h.client.assets.getAsset({ Id: asset.Id }));
      expect(notOwned).toBeInstanceOf(ForbiddenError);
      expect(notOwned.vendorCode).toBe('AssetNotOwned');
      h.emu.advanceClock(60_001);
      await expect(h.client.generation.get(id)).resolves.toMatchObject({ id, status: 'succeeded' });
      await expect(h.client.review.getTask(review.task_id)).resolves.toMatchObject({ status: 'completed' });
      await expect(h.client.assets.getAsset({ Id: asset.Id })).resolves.toMatchObject({ Status: 'Active' });
    });
  });

  it('a 429 carries retryAfterAt: the client clock when it arrived + Retry-After', async () => {
    await forBoth(async (h) => {
      const now = 1_900_000_000_000;
      const client = h.make({ now: () => now });
      h.emu.setFaults({ 'generation.get': { rateLimit429: { next: 1, retryAfterSeconds: 7 } } });
      const err = await failure(client.generation.get('any'));
      expect(err).toBeInstanceOf(RateLimitedError);
      expect(err).toMatchObject({ retryAfterMs: 7_000, retryAfterAt: now + 7_000 });
      expect(toFailureInfo(err)).toMatchObject({
        type: FailureType.RateLimitedError,
        retryAfterMs: 7_000,
        retryAfterAt: now + 7_000,
      });
    });
  });

  it('an echo of a credential is scrubbed in any letter case, the TrackId included', async () => {
    await forBoth(async (h) => {
      const dispatcher = new Agent();
      const err = (await failure(
        httpRequest({
          endpoint: 'assets.invoke',
          method: 'POST',
          // The vendor echoes the Action (in its message) and our X-Track-Id (as TrackId or RequestId).
          url: `${h.emu.url}/api/asset-management?Action=Emu-User-1`,
          headers: { 'X-Access-Token': USER_1, 'X-Track-Id': USER_1.toUpperCase() },
          body: {},
          idempotent: false,
          dispatcher,
          secrets: [USER_1],
        }).finally(() => dispatcher.close()),
      )) as VendorError & { vendorMessage?: string };
      expect(err).toMatchObject({
        name: FailureType.RejectedError,
        vendorCode: 'UnsupportedAction',
        traceId: '[redacted]',
      });
      const shown = JSON.stringify({ ...toFailureInfo(err), vendorMessage: err.vendorMessage }).toLowerCase();
      expect(shown).not.toContain(USER_1);
      expect(err.message).toContain('[redacted]');
    });
  });
});
