import type { RunningEmulator } from '../../src/emulator';
import { api, start, systemGroupId } from './helpers';
import { USER_1, USER_2 } from '../support/emulator';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const a = () => api(emu).asset;
async function newGroup(Name: string, token = USER_1): Promise<string> {
  const res = await a()('CreateAssetGroup', { Name }, token);
  expect(res.status).toBe(200);
  return res.body.Result.Id;
}
async function newAsset(GroupId: string, URL = 'https://example.com/cat.png', extra: object = {}, token = USER_1) {
  const res = await a()('CreateAsset', { GroupId, URL, AssetType: 'Image', Name: 'cat', ...extra }, token);
  expect(res.status).toBe(200);
  return res.body.Result.Id as string;
}
function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ Code: code, Message: expect.any(String), TrackId: expect.any(String) });
}

describe('envelope and authentication', () => {
  it('wraps results in ResponseMetadata, echoing X-Track-Id as RequestId', async () => {
    const res = await a()('CreateAssetGroup', { Name: 'g1' }, USER_1, { 'x-track-id': 'my-track-1' });
    expect(res.body.ResponseMetadata).toEqual({
      Action: 'CreateAssetGroup',
      Region: expect.any(String),
      RequestId: 'my-track-1',
      Service: expect.any(String),
      Version: expect.any(String),
    });
    expect(res.body.Result).toEqual({ Id: expect.stringMatching(/^group-/), Name: 'g1', Description: '' });
    expect(res.headers.get('x-track-id')).toBe('my-track-1');
  });

  it('shows only Result for ListAssetGroups', async () => {
    const res = await a()('ListAssetGroups');
    expect(Object.keys(res.body)).toEqual(['Result']);
  });

  it('answers 401 {Code, Message, TrackId} for a missing or unknown token, echoing or generating TrackId', async () => {
    const missing = await a()('ListAssetGroups', {}, null, { 'x-track-id': 't-1' });
    expectError(missing, 401, 'InvalidAccessToken');
    expect(missing.body.TrackId).toBe('t-1');
    const unknown = await a()('ListAssetGroups', {}, 'who-am-i');
    expectError(unknown, 401, 'InvalidAccessToken');
    expect(unknown.body.TrackId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('answers UnsupportedAction for an absent or unknown Action', async () => {
    expectError(await a()(null, {}), 400, 'UnsupportedAction');
    expectError(await a()('', {}), 400, 'UnsupportedAction');
    expectError(await a()('DropTables', {}), 400, 'UnsupportedAction');
  });

  it('answers MissingField for a malformed body or a missing required field', async () => {
    expectError(await a()('CreateAssetGroup', '{oops'), 400, 'MissingField');
    expectError(await a()('CreateAssetGroup', '[1,2]'), 400, 'MissingField');
    expectError(await a()('CreateAssetGroup', {}), 400, 'MissingField');
    for (const action of [
      'GetAssetGroup',
      'UpdateAssetGroup',
      'DeleteAssetGroup',
      'GetAsset',
      'UpdateAsset',
      'DeleteAsset',
    ]) {
      expectError(await a()(action, {}), 400, 'MissingField');
    }
    const g = await systemGroupId(emu, 'AIGC');
    expectError(await a()('CreateAsset', { URL: 'https://example.com/a.png' }), 400, 'MissingField');
    expectError(await a()('CreateAsset', { GroupId: g }), 400, 'MissingField');
  });
});

describe('asset groups', () => {
  it('gives each user a default AIGC group and a LivenessFace group; lists with any empty body', async () => {
    for (const body of [undefined, '""', {}]) {
      const res = await a()('ListAssetGroups', body);
      expect(res.status).toBe(200);
      expect(res.body.Result.Total).toBe(2);
      expect(res.body.Result.AssetGroups.map((g: any) => g.GroupType).sort()).toEqual(['AIGC', 'LivenessFace']);
      for (const g of res.body.Result.AssetGroups) {
        expect(Object.keys(g).sort()).toEqual(['CreateTime', 'Description', 'GroupType', 'Id', 'Name', 'UpdateTime']);
        expect(new Date(g.CreateTime).toISOString()).toBe(g.CreateTime);
      }
    }
  });

  it('filters by GroupType and refuses an unknown one', async () => {
    await newGroup('mine');
    const aigc = await a()('ListAssetGroups', { Filter: { GroupType: 'AIGC' } });
    expect(aigc.body.Result.AssetGroups.map((g: any) => g.Name)).toEqual(['default', 'mine']);
    const face = await a()('ListAssetGroups', { Filter: { GroupType: 'LivenessFace' } });
    expect(face.body.Result.Total).toBe(1);
    expectError(await a()('ListAssetGroups', { Filter: { GroupType: 'Other' } }), 400, 'InvalidParameter');
  });

  it('keeps users apart: another user sees neither the group nor may touch it (GroupNotOwned 403)', async () => {
    const g = await newGroup('private');
    expect((await a()('ListAssetGroups', {}, USER_2)).body.Result.Total).toBe(2);
    expectError(await a()('GetAssetGroup', { Id: g }, USER_2), 403, 'GroupNotOwned');
    expectError(await a()('UpdateAssetGroup', { Id: g, Name: 'x' }, USER_2), 403, 'GroupNotOwned');
    expectError(await a()('DeleteAssetGroup', { Id: g }, USER_2), 403, 'GroupNotOwned');
    expectError(await a()('CreateAsset', { GroupId: g, URL: 'https://e.com/a.png' }, USER_2), 403, 'GroupNotOwned');
  });

  it('applies the name rules: CJK, letters, digits, - and _, at most 50 characters', async () => {
    await newGroup('视频素材-Group_01');
    await newGroup('汉'.repeat(50));
    expectError(await a()('CreateAssetGroup', { Name: 'x'.repeat(51) }), 400, 'InvalidGroupName');
    for (const Name of ['has space', 'dot.name', 'emoji😀', 'slash/']) {
      expectError(await a()('CreateAssetGroup', { Name }), 400, 'InvalidGroupName');
    }
    const g = await newGroup('ok');
    expectError(await a()('UpdateAssetGroup', { Id: g, Name: 'bad name' }), 400, 'InvalidGroupName');
  });

  it('gets, updates and deletes a group', async () => {
    const g = await newGroup('before', USER_1);
    await a()('UpdateAssetGroup', { Id: g, Description: 'desc only' });
    let got = await a()('GetAssetGroup', { Id: g });
    expect(got.body.Result).toMatchObject({ Id: g, Name: 'before', Description: 'desc only' });
    expect(Object.keys(got.body.Result).sort()).toEqual(['CreateTime', 'Description', 'Id', 'Name', 'UpdateTime']);
    const updated = await a()('UpdateAssetGroup', { Id: g, Name: 'after' });
    expect(updated.body.Result).toEqual({});
    got = await a()('GetAssetGroup', { Id: g });
    expect(got.body.Result.Name).toBe('after');
    expect((await a()('DeleteAssetGroup', { Id: g })).body.Result).toEqual({});
    expectError(await a()('GetAssetGroup', { Id: g }), 403, 'GroupNotOwned');
  });

  it('protects the system groups', async () => {
    const def = await systemGroupId(emu, 'AIGC');
    const face = await systemGroupId(emu, 'LivenessFace');
    expectError(await a()('UpdateAssetGroup', { Id: def, Name: 'renamed' }), 400, 'DefaultGroupImmutable');
    expectError(await a()('DeleteAssetGroup', { Id: def }), 400, 'DefaultGroupImmutable');
    expectError(await a()('UpdateAssetGroup', { Id: face, Name: 'renamed' }), 400, 'RealPersonGroupImmutable');
    expect((await a()('UpdateAssetGroup', { Id: def, Description: 'notes are fine' })).status).toBe(200);
  });

  it('refuses to delete a group that holds assets (GroupNotEmpty) until they are deleted', async () => {
    const g = await newGroup('full');
    const asset = await newAsset(g);
    expectError(await a()('DeleteAssetGroup', { Id: g }), 400, 'GroupNotEmpty');
    await a()('DeleteAsset', { Id: asset });
    expect((await a()('DeleteAssetGroup', { Id: g })).status).toBe(200);
  });

  it('counts the default groups toward the 100-group quota (QuotaExceeded)', async () => {
    for (let i = 0; i < 98; i++) await newGroup(`g${i}`);
    expectError(await a()('CreateAssetGroup', { Name: 'one-too-many' }), 400, 'QuotaExceeded');
    expect((await a()('ListAssetGroups')).body.Result.Total).toBe(100);
    expect((await a()('CreateAssetGroup', { Name: 'other-user' }, USER_2)).status).toBe(200);
  });
});

describe('assets', () => {
  it('processes CreateAsset asynchronously: Pending, then Active with a signed ~12 h URL', async () => {
    const g = await systemGroupId(emu, 'AIGC');
    const id = await newAsset(g, 'https://example.com/pics/cat.png', { AssetType: 'image' });
    const pending = await a()('GetAsset', { Id: id });
    expect(pending.body.Result).toMatchObject({
      Id: id,
      Status: 'Pending',
      URL: '',
      AssetType: 'Image',
      GroupId: g,
      Name: 'cat',
    });
    emu.advanceClock(1_000);
    const active = (await a()('GetAsset', { Id: id })).body.Result;
    expect(active.Status).toBe('Active');
    expect(Object.keys(active).sort()).toEqual([
      'AssetType',
      'CreateTime',
      'GroupId',
      'Id',
      'Name',
      'Status',
      'URL',
      'UpdateTime',
    ]);
    const signed = new URL(active.URL);
    expect(Number(signed.searchParams.get('expires')) * 1000 - emu.inspect().nowMs).toBe(12 * 3600 * 1000);
    const follow = await fetch(signed, { redirect: 'manual' });
    expect(follow.status).toBe(302);
    expect(follow.headers.get('location')).toBe('https://example.com/pics/cat.png');
    emu.advanceClock(12 * 3600 * 1000);
    expect((await fetch(signed, { redirect: 'manual' })).status).toBe(410);
  });

  it('ends Failed when the URL contains "fail"', async () => {
    const id = await newAsset(await systemGroupId(emu, 'AIGC'), 'https://example.com/will-fail.png');
    emu.advanceClock(1_000);
    expect((await a()('GetAsset', { Id: id })).body.Result).toMatchObject({ Status: 'Failed', URL: '' });
  });

  it('infers AssetType from the extension when absent, names after the file, and refuses bad input', async () => {
    const g = await systemGroupId(emu, 'AIGC');
    const res = await a()('CreateAsset', { GroupId: g, URL: 'https://example.com/clip.MP4' });
    const got = (await a()('GetAsset', { Id: res.body.Result.Id })).body.Result;
    expect(got).toMatchObject({ AssetType: 'Video', Name: 'clip.MP4' });
    expectError(
      await a()('CreateAsset', { GroupId: g, URL: 'https://e.com/a.png', AssetType: 'Picture' }),
      400,
      'InvalidParameter',
    );
    expectError(await a()('CreateAsset', { GroupId: g, URL: 'http://127.0.0.1/a.png' }), 400, 'InvalidParameter');
    expectError(await a()('CreateAsset', { GroupId: g, URL: 'file:///etc/passwd' }), 400, 'InvalidParameter');
  });

  it('lists with PageNumber/PageSize defaults 1/20 and a Total', async () => {
    const g = await systemGroupId(emu, 'AIGC');
    for (let i = 0; i < 25; i++) await newAsset(g, `https://example.com/${i}.png`, { Name: `n${i}` });
    const first = await a()('ListAssets', {});
    expect(first.body.Result.Total).toBe(25);
    expect(first.body.Result.Assets).toHaveLength(20);
    expect(first.body.Result.Assets[0].Name).toBe('n0');
    const second = await a()('ListAssets', { PageNumber: 2 });
    expect(second.body.Result.Assets.map((x: any) => x.Name)).toEqual(['n20', 'n21', 'n22', 'n23', 'n24']);
    const small = await a()('ListAssets', { PageNumber: 3, PageSize: 10 });
    expect(small.body.Result.Assets).toHaveLength(5);
    expectError(await a()('ListAssets', { PageSize: 101 }), 400, 'InvalidParameter');
    expectError(await a()('ListAssets', { PageNumber: 0 }), 400, 'InvalidParameter');
  });

  it('filters by GroupIds, silently dropping groups the user does not own', async () => {
    const g1 = await newGroup('one');
    const g2 = await newGroup('two');
    const foreign = await newGroup('theirs', USER_2);
    await newAsset(g1, 'https://e.com/1.png');
    await newAsset(g2, 'https://e.com/2.png');
    await newAsset(foreign, 'https://e.com/3.png', {}, USER_2);
    const both = await a()('ListAssets', { Filter: { GroupIds: [g1, foreign] } });
    expect(both.body.Result.Total).toBe(1);
    expect(both.body.Result.Assets[0].GroupId).toBe(g1);
    expect((await a()('ListAssets', { Filter: { GroupIds: [foreign] } })).body.Result.Total).toBe(0);
    expect((await a()('ListAssets', {})).body.Result.Total).toBe(2);
    expectError(await a()('ListAssets', { Filter: { GroupIds: 'one' } }), 400, 'InvalidParameter');
  });

  it('updates and deletes an asset; Deleted is terminal and shown by GetAsset, not by ListAssets', async () => {
    const id = await newAsset(await systemGroupId(emu, 'AIGC'));
    expect((await a()('UpdateAsset', { Id: id, Name: 'renamed' })).body.Result).toEqual({});
    expect((await a()('GetAsset', { Id: id })).body.Result.Name).toBe('renamed');
    expect((await a()('DeleteAsset', { Id: id })).body.Result).toEqual({});
    expect((await a()('DeleteAsset', { Id: id })).status).toBe(200);
    expect((await a()('GetAsset', { Id: id })).body.Result.Status).toBe('Deleted');
    expect((await a()('ListAssets', {})).body.Result.Total).toBe(0);
    emu.advanceClock(5_000);
    expect((await a()('GetAsset', { Id: id })).body.Result.Status).toBe('Deleted');
  });

  it("answers AssetNotOwned (403) for another user's asset", async () => {
    const id = await newAsset(await systemGroupId(emu, 'AIGC'));
    for (const action of ['GetAsset', 'UpdateAsset', 'DeleteAsset']) {
      expectError(await a()(action, { Id: id, Name: 'x' }, USER_2), 403, 'AssetNotOwned');
    }
  });
});

describe('GetAsset rate limit', () => {
  it('allows 10 per second per token, then 429 RateLimitExceeded with Retry-After', async () => {
    const id = await newAsset(await systemGroupId(emu, 'AIGC'));
    for (let i = 0; i < 10; i++) expect((await a()('GetAsset', { Id: id })).status).toBe(200);
    const limited = await a()('GetAsset', { Id: id });
    expectError(limited, 429, 'RateLimitExceeded');
    expect(limited.headers.get('retry-after')).toBe('1');
    // Another token has its own window; other actions are not limited.
    const other = await newAsset(await systemGroupId(emu, 'AIGC', USER_2), undefined, {}, USER_2);
    expect((await a()('GetAsset', { Id: other }, USER_2)).status).toBe(200);
    expect((await a()('ListAssets', {})).status).toBe(200);
    // The window slides: one second later the token may call again.
    emu.advanceClock(1_000);
    expect((await a()('GetAsset', { Id: id })).status).toBe(200);
    expect(emu.inspect().counters.rateLimited429['assets.GetAsset']).toBe(1);
  });
});

describe('faults', () => {
  it('answers 502 UpstreamCallFailed under the upstream502 fault, creating nothing', async () => {
    emu.setFaults({ 'assets.CreateAsset': { upstream502: { next: 1 } } });
    const g = await systemGroupId(emu, 'AIGC');
    const res = await a()('CreateAsset', { GroupId: g, URL: 'https://example.com/a.png' }, USER_1, {
      'x-track-id': 'trk',
    });
    expectError(res, 502, 'UpstreamCallFailed');
    expect(res.body.TrackId).toBe('trk');
    expect(emu.inspect().assets).toHaveLength(0);
  });
});
