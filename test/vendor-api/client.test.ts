/** The client's wire format against a recording local server: paths, credentials, trace ids, envelopes, helpers. */
import type { ServerResponse } from 'node:http';
import { createVendorClient, type VendorClient } from '../../src/vendor-api/client';
import {
  AmbiguousError,
  MissingCredentialError,
  ResponseShapeError,
  VendorConfigError,
} from '../../src/vendor-api/errors';
import { startServer, type LocalServer, type Recorded } from '../support/http-server';
import { FailureType } from '../../src/failures';

const HEX32 = /^[0-9a-f]{32}$/;
const META = { Action: 'X', Region: 'r', RequestId: 'req', Service: 's', Version: '2024-01-01' };
const T = '2026-01-01T00:00:00Z';

const asset = (i: number, over: Record<string, unknown> = {}) => ({
  Id: `a${i}`,
  Name: `n${i}`,
  AssetType: 'Image',
  GroupId: 'g1',
  Status: 'Active',
  URL: `https://signed/${i}`,
  CreateTime: T,
  UpdateTime: T,
  ...over,
});

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A fake vendor good enough for wire checks; 45 assets in g1 for paging. */
function fakeVendor(req: Recorded, res: ServerResponse) {
  const url = new URL(req.url, 'http://x');
  const body = req.body ? (JSON.parse(req.body) as { PageNumber?: number; PageSize?: number }) : undefined;
  const action = url.searchParams.get('Action');
  if (url.pathname === '/v1/task/create') return send(res, 200, { id: 'gen-1', extra: true });
  if (url.pathname.startsWith('/v1/task/get/'))
    return send(res, 200, { id: decodeURIComponent(url.pathname.slice(13)), status: 'running' });
  if (url.pathname.includes('erase-video-subtitle')) return send(res, 200, { task_id: 'e1', request_id: 'r1' });
  if (url.pathname === '/api/v1/svc-tasks/e1')
    return send(res, 200, { task_id: 'e1', request_id: 'r1', status: 'SUCCESS' });
  if (url.pathname === '/api/asset/upload/async') {
    return send(res, 202, {
      code: 202,
      task_id: 'rv1',
      track_id: req.headers['x-track-id'],
      status: 'pending',
      message: 'accepted',
    });
  }
  if (url.pathname === '/api/task/rv1') return send(res, 200, { code: 200, task_id: 'rv1', status: 'processing' });
  if (url.pathname === '/kling/v1/videos/text2video/k1') return send(res, 200, { anything: [1, 2] });
  if (action === 'ListAssets') {
    const all = Array.from({ length: 45 }, (_, i) =>
      asset(i, i === 7 ? { Name: 'dup', CreateTime: '2026-01-02T00:00:00Z' } : i === 30 ? { Name: 'dup' } : {}),
    );
    const n = body?.PageNumber ?? 1;
    const size = body?.PageSize ?? 20;
    return send(res, 200, {
      ResponseMetadata: META,
      Result: { Assets: all.slice((n - 1) * size, n * size), Total: all.length },
    });
  }
  if (action === 'ListAssetGroups') {
    const g = (id: string, Name: string, CreateTime: string) => ({
      Id: id,
      Name,
      GroupType: 'AIGC',
      CreateTime,
      UpdateTime: T,
    });
    return send(res, 200, {
      Result: { AssetGroups: [g('g2', 'dup', '2026-02-01T00:00:00Z'), g('g1', 'dup', T), g('g3', 'x', T)], Total: 3 },
    });
  }
  if (action === 'GetAsset') return send(res, 200, { ResponseMetadata: META, Result: { Id: 'a1' } });
  if (action === 'UpdateAsset') return send(res, 200, { ResponseMetadata: META, Result: {} });
  if (action === 'CreateAsset') return send(res, 200, { Result: { Id: 'a1' } });
  return send(res, 404, { Code: 'NotFound', Message: 'no', TrackId: 't' });
}

let server: LocalServer;
let client: VendorClient;
beforeAll(async () => {
  server = await startServer(fakeVendor);
  client = createVendorClient({
    baseUrl: `${server.url}/`,
    identityUrl: server.url,
    apiKey: 'key-abcdef',
    accessToken: 'tok-abcdef',
  });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});
const last = () => server.requests[server.requests.length - 1];

describe('base_url interfaces use the Bearer API key', () => {
  it('generation.create / get', async () => {
    expect(await client.generation.create({ model: 'm', content: [{ type: 'text', text: 'hi' }] })).toEqual({
      id: 'gen-1',
      extra: true,
    });
    expect(last()).toMatchObject({ method: 'POST', url: '/v1/task/create' });
    expect(last().headers.authorization).toBe('Bearer key-abcdef');
    expect(last().headers['x-access-token']).toBeUndefined();
    expect((await client.generation.get('a/b')).id).toBe('a/b');
    expect(last().url).toBe('/v1/task/get/a%2Fb');
  });

  it('erase.create sends a fresh X-Trace-ID, the body callback and the header callback', async () => {
    const seen: (string | undefined)[] = [];
    await client.erase.create(
      { video_url: 'https://v.io/x.mp4', callback_url: 'https://cb.io/body' },
      { callbackUrlHeader: 'https://cb.io/header', onResponse: (m) => seen.push(m.traceId) },
    );
    const r = last();
    expect(r.url).toBe('/api/v1/svc-tools/svc-erase-video-subtitle-pro');
    expect(r.headers['x-trace-id']).toMatch(HEX32);
    expect(seen).toEqual([r.headers['x-trace-id']]);
    expect(r.headers['x-callback-url']).toBe('https://cb.io/header');
    expect(JSON.parse(r.body)).toEqual({ video_url: 'https://v.io/x.mp4', callback_url: 'https://cb.io/body' });
    await client.erase.create({ video_url: 'https://v.io/x.mp4' });
    expect(last().headers['x-trace-id']).not.toBe(r.headers['x-trace-id']);
    expect(last().headers['x-callback-url']).toBeUndefined();
  });

  it('erase.get: a SUCCESS without video_url is a ResponseShapeError naming video_url', async () => {
    const err = await client.erase.get('e1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err).toMatchObject({ field: 'video_url', endpoint: 'erase.get', retryable: true });
  });

  it('raw entry points', async () => {
    expect(await client.raw.rawRequest('GET', '/kling/v1/videos/text2video/k1')).toEqual({ anything: [1, 2] });
    expect(last().headers.authorization).toBe('Bearer key-abcdef');
  });
});

describe('identity_url interfaces use X-Access-Token + X-Track-Id', () => {
  it('asset management path, headers and Result unwrapping', async () => {
    await client.assets.updateAsset({ Id: 'a1', Name: 'n' });
    const r = last();
    expect(r.url).toBe('/api/asset-management?Action=UpdateAsset');
    expect(r.headers['x-access-token']).toBe('tok-abcdef');
    expect(r.headers['x-track-id']).toMatch(HEX32);
    expect(r.headers.authorization).toBeUndefined();
    expect(JSON.parse(r.body)).toEqual({ Id: 'a1', Name: 'n' });
  });

  it('ListAssetGroups without ResponseMetadata is accepted; CreateAsset without it is a shape error', async () => {
    expect((await client.assets.listAssetGroups()).Total).toBe(3);
    expect(JSON.parse(last().body)).toEqual({});
    const err = await client.assets.createAsset({ GroupId: 'g1', URL: 'https://x.io/a.png' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err).toBeInstanceOf(AmbiguousError);
    expect(err).toMatchObject({ field: 'ResponseMetadata', retryable: false });
  });

  it('GetAsset with a partial asset is a shape error naming the field', async () => {
    const err = await client.assets.getAsset({ Id: 'a1' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: FailureType.ResponseShapeError, field: 'Result.AssetType', retryable: true });
  });

  it('listAllAssets walks pages; findAssetByName picks the earliest; findGroupByName too', async () => {
    const all = await client.assets.listAllAssets({ GroupIds: ['g1'] });
    expect(all).toHaveLength(45);
    expect(server.requests.map((r) => (JSON.parse(r.body) as { PageNumber: number }).PageNumber)).toEqual([1, 2, 3]);
    expect(JSON.parse(server.requests[0].body)).toEqual({ Filter: { GroupIds: ['g1'] }, PageNumber: 1, PageSize: 20 });
    expect((await client.assets.findAssetByName('g1', 'dup'))?.Id).toBe('a30');
    expect(await client.assets.findAssetByName('g1', 'none')).toBeUndefined();
    expect((await client.assets.findGroupByName('dup'))?.Id).toBe('g1');
    expect(await client.assets.findGroupByName('zzz')).toBeUndefined();
  });

  it('invoke sends any Action and body form', async () => {
    await client.assets.invoke('ListAssetGroups', undefined);
    expect(last().body).toBe('');
    await client.assets.invoke('ListAssetGroups', '', { validate: false });
    expect(last().body).toBe('');
    await client.assets.invoke('', {}).catch(() => undefined);
    expect(last().url).toBe('/api/asset-management?Action=');
  });

  it('review: async submit fills asset_type from the extensions; getTask sends both headers', async () => {
    const accepted = await client.review.submitAsync({ images: ['https://x.io/a.MP4?sig=1'] });
    expect(accepted.track_id).toBe(last().headers['x-track-id']);
    expect(JSON.parse(last().body)).toEqual({ images: ['https://x.io/a.MP4?sig=1'], asset_type: 'Video' });
    expect((await client.review.getTask('rv1')).status).toBe('processing');
    expect(last().headers['x-access-token']).toBe('tok-abcdef');
    expect(last().headers['x-track-id']).toMatch(HEX32);
  });
});

describe('configuration errors', () => {
  it('a missing credential fails before sending and names the option, not a value', async () => {
    const bare = createVendorClient({ baseUrl: server.url, identityUrl: server.url });
    for (const p of [
      bare.generation.create({ model: 'm', content: [{ type: 'text', text: 'x' }] }),
      bare.erase.get('e1'),
      bare.raw.rawRequest('POST', '/v1/chat/completions', {}),
    ]) {
      await expect(p).rejects.toThrow(/no apiKey \(env REELFLOW_PROFILE_<NAME>_API_KEY\) configured; not sent/);
    }
    for (const p of [bare.assets.getAsset({ Id: 'a' }), bare.review.getTask('t')]) {
      const err = await p.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MissingCredentialError);
      expect(err).toMatchObject({ field: 'accessToken', retryable: false });
    }
    expect(server.requests).toHaveLength(0);
    await bare.close();
  });

  it('bad addresses and timeouts are VendorConfigErrors naming the option', () => {
    expect(() => createVendorClient({ baseUrl: 'ftp://x', identityUrl: server.url })).toThrow(VendorConfigError);
    expect(() => createVendorClient({ baseUrl: server.url, identityUrl: 'http://u:p@x' })).toThrow(/identityUrl/);
    expect(() =>
      createVendorClient({ baseUrl: server.url, identityUrl: server.url, timeouts: { headersMs: 0 } }),
    ).toThrow(/timeouts\.headersMs/);
  });

  it('per-call timeouts override the client default', async () => {
    const slow = await startServer(() => undefined);
    const c = createVendorClient({
      baseUrl: slow.url,
      identityUrl: slow.url,
      apiKey: 'k',
      timeouts: { headersMs: 60_000 },
    });
    const started = Date.now();
    const err = await c.generation.get('x', { timeouts: { headersMs: 200 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AmbiguousError);
    expect((err as AmbiguousError).retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(30_000);
    await c.close();
    await slow.close();
  });
});
