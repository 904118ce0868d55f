/** Requests are validated before sending: a bad one is a RejectedError naming the field, and no HTTP call is made. */
import { createVendorClient, type VendorClient } from '../../src/vendor-api/client';
import { RejectedError } from '../../src/vendor-api/errors';
import { json, startServer, type LocalServer } from '../support/http-server';

let server: LocalServer;
let client: VendorClient;
beforeAll(async () => {
  server = await startServer(json(500, {}));
  client = createVendorClient({
    baseUrl: server.url,
    identityUrl: server.url,
    apiKey: 'k-123456',
    accessToken: 't-123456',
  });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
afterEach(() => expect(server.requests).toHaveLength(0));

async function rejected(p: Promise<unknown>): Promise<RejectedError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(RejectedError);
    return err as RejectedError;
  }
  throw new Error('expected RejectedError');
}

const text = { type: 'text', text: 'a cat' } as const;

describe('generation.create', () => {
  it.each([
    [
      { model: 'm', content: [text, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } }] },
      'content[1].image_url.url',
      /base64/,
    ],
    [
      { model: 'm', content: [text, { type: 'video_url', video_url: { url: 'ftp://x/v.mp4' } }] },
      'content[1].video_url.url',
      /http\(s\) URL or an Asset:\/\//,
    ],
    [{ model: 'm', content: [{ type: 'audio_url', audio_url: {} }] }, 'content[0].audio_url.url', /expected string/],
    [{ model: 'm', content: [{ type: 'text' }] }, 'content[0].text', /expected string/],
    [
      { model: 'm', content: [{ type: 'gif' }] },
      'content[0].type',
      /must be one of text, image_url, video_url, audio_url/,
    ],
    [
      { model: 'm', content: [{ type: 'image_url', image_url: { url: 'asset://' } }] },
      'content[0].image_url.url',
      /needs an asset id/,
    ],
    [
      { model: 'm', content: [{ type: 'image_url', image_url: { url: 'https://u:p@x.io/a.png' } }] },
      'content[0].image_url.url',
      /user name or password/,
    ],
    [
      { model: 'm', content: [{ type: 'image_url', image_url: { url: 'https://x.io/a b.png' } }] },
      'content[0].image_url.url',
      /spaces/,
    ],
    [
      { model: 'm', content: [{ type: 'image_url', image_url: { url: 'http://' } }] },
      'content[0].image_url.url',
      /no host/,
    ],
    [{ model: '', content: [text] }, 'model', /empty/],
    [{ content: [text] }, 'model', /expected string/],
    [{ model: 'm', content: [] }, 'content', /at least one/],
    [{ model: 'm', content: [text], ratio: '' }, 'ratio', /empty/],
    [{ model: 'm', content: [text], resolution: '' }, 'resolution', /empty/],
    [{ model: 'm', content: [text], seed: 1.5 }, 'seed', /int/],
    [{ model: 'm', content: [text], duration: 0 }, 'duration', /positive number of seconds, or -1/],
    [{ model: 'm', content: [text], duration: -5 }, 'duration', /positive number of seconds, or -1/],
    [{ model: 'm', content: [text], callback_url: 'not a url' }, 'callback_url', /http/],
    [{ model: 'm', content: [text], callbackUrl: 'https://x.io/cb' }, 'callbackUrl', /Unrecognized key/],
  ])('%j → %s', async (req, field, why) => {
    const err = await rejected(client.generation.create(req as never));
    expect(err.field).toBe(field);
    expect(err.endpoint).toBe('generation.create');
    expect(err.message).toContain(`generation.create: invalid field ${field}`);
    expect(err.message).toMatch(why);
    expect(err.message).not.toContain('iVBOR');
  });

  it('accepts Asset:// addresses and roles (sent, here to a 500)', async () => {
    const err = await client.generation
      .create({
        model: 'm',
        content: [text, { type: 'image_url', image_url: { url: 'Asset://asset-1' }, role: 'first_frame' }],
      })
      .catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(RejectedError);
    server.requests.length = 0;
  });

  it.each([[{ ratio: 'adaptive' }], [{ ratio: 'keep_ratio' }], [{ resolution: '4k' }], [{ duration: -1 }]])(
    'accepts what the spec does not forbid: %j (sent, here to a 500)',
    async (extra) => {
      const err = await client.generation.create({ model: 'm', content: [text], ...extra }).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(RejectedError);
      expect(JSON.parse(server.requests[0].body)).toMatchObject(extra);
      server.requests.length = 0;
    },
  );

  it('refuses an empty id for get', async () => {
    expect((await rejected(client.generation.get(''))).field).toBe('id');
  });
});

describe('erase.create', () => {
  it('names video_url, callback_url and the X-Callback-URL header', async () => {
    expect((await rejected(client.erase.create({ video_url: '' }))).field).toBe('video_url');
    expect(
      (await rejected(client.erase.create({ video_url: 'https://x.io/v.mp4', callback_url: 'javascript:x' }))).field,
    ).toBe('callback_url');
    expect(
      (await rejected(client.erase.create({ video_url: 'https://x.io/v.mp4' }, { callbackUrlHeader: 'nope' }))).field,
    ).toBe('X-Callback-URL');
    expect((await rejected(client.erase.get(' '))).field).toBe('task_id');
  });
});

describe('asset management', () => {
  it.each([
    ['createAssetGroup', { Name: 'bad name!' }, 'Name', /Chinese characters/],
    ['createAssetGroup', { Name: 'x'.repeat(51) }, 'Name', /at most 50/],
    ['createAssetGroup', {}, 'Name', /expected string/],
    ['updateAssetGroup', { Id: 'g', Name: 'a/b' }, 'Name', /Chinese/],
    ['getAssetGroup', {}, 'Id', /expected string/],
    ['deleteAssetGroup', { Id: '' }, 'Id', /empty/],
    ['createAsset', { URL: 'https://x.io/a.png' }, 'GroupId', /expected string/],
    ['createAsset', { GroupId: 'g', URL: 'data:image/png;base64,AA' }, 'URL', /base64/],
    ['createAsset', { GroupId: 'g', URL: 'https://x.io/a.png', AssetType: 'IMAGE' }, 'AssetType', /Invalid option/],
    ['listAssets', { PageSize: 0 }, 'PageSize', /Too small/],
    ['listAssets', { Filter: { GroupIds: 'g1' } }, 'Filter.GroupIds', /expected array/],
    ['listAssetGroups', { Filter: { GroupType: 'Other' } }, 'Filter.GroupType', /Invalid option/],
    ['getAsset', { Id: 1 }, 'Id', /expected string/],
    ['updateAsset', { Name: 'n' }, 'Id', /expected string/],
    ['deleteAsset', { Id: 'a', Force: true }, 'Force', /Unrecognized/],
  ] as const)('%s(%j) → %s', async (method, req, field, why) => {
    const fn = client.assets[method] as (r: unknown) => Promise<unknown>;
    const err = await rejected(fn(req));
    expect(err.field).toBe(field);
    expect(err.message).toMatch(why);
  });

  it('accepts a 50-character name of Chinese characters, letters, digits, - and _', async () => {
    const name = `素材组-A_1${'x'.repeat(43)}`;
    expect([...name]).toHaveLength(50);
    await client.assets
      .createAssetGroup({ Name: name })
      .catch((e: unknown) => expect(e).not.toBeInstanceOf(RejectedError));
    server.requests.length = 0;
  });
});

describe('review submissions', () => {
  const img = (i: number) => `https://x.io/${i}.png`;
  it.each([
    [{ images: [] }, 'images', /at least one URL/],
    [{}, 'images', /at least one URL/],
    [{ images: Array.from({ length: 51 }, (_, i) => img(i)) }, 'images', /at most 50/],
    [{ images: [img(0), 'https://x.io/v.mp4'] }, 'images[1]', /one batch holds one type/],
    [{ images: [img(0), 'https://x.io/a.txt'] }, 'images[1]', /unsupported extension \.txt/],
    [{ images: ['data:image/png;base64,AA'] }, 'images[0]', /http\(s\)/],
    [{ images: [img(0)], asset_url_list: ['https://x.io/v.mov', img(1)] }, 'asset_url_list[1]', /one type/],
    [{ images: ['https://x.io/v.mp4'], asset_type: 'Image' }, 'images[0]', /is Video/],
    [{ images: [img(0)], group_id: 'g', group_source: 'other' }, 'group_source', /real_person/],
    [{ images: [img(0)], callback_url: 'x' }, 'callback_url', /http/],
  ])('%j → %s', async (req, field, why) => {
    for (const submit of [client.review.submitAsync, client.review.submitSync]) {
      const err = await rejected(submit(req as never));
      expect(err.field).toBe(field);
      expect(err.message).toMatch(why);
    }
  });

  it('refuses an empty task id', async () => {
    expect((await rejected(client.review.getTask(''))).field).toBe('task_id');
  });
});

describe('raw entry points', () => {
  it.each([
    ['GET', '/v1/task/create'],
    ['POST', '/kling/v1/videos/text2video/abc'],
    ['GET', '/kling/v1/videos/text2video/'],
    ['GET', '/kling/v1/videos/text2video/a/b'],
    ['GET', '/kling/v1/videos/text2video/..'],
    ['GET', '/v1/videos/x?y=1'],
    ['DELETE', '/v1/videos/x'],
  ])('%s %s is refused', async (method, path) => {
    const err = await rejected(client.raw.rawRequest(method as 'GET', path));
    expect(err.field).toBe('path');
  });

  it('GET takes no body', async () => {
    expect((await rejected(client.raw.rawRequest('GET', '/v1/videos/x', { a: 1 }))).field).toBe('body');
  });
});
