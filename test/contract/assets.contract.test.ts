/**
 * Asset management (docs/vendor-contract.md, "How each interface behaves") through the client
 * against the emulator: every error row and rule.
 */
import {
  ForbiddenError,
  RateLimitedError,
  RejectedError,
  UnauthorizedError,
  UpstreamFailedError,
} from '../../src/vendor-api/errors';
import { USER_1 } from '../support/emulator';
import { failure, media, rawCall, useEmulator } from './harness';
import { FailureType } from '../../src/failures';

const h = useEmulator();

async function systemGroups(client = h.client) {
  const { AssetGroups } = await client.assets.listAssetGroups();
  const byName = (n: string) => AssetGroups.find((g) => g.Name === n)!;
  return { def: byName('default'), real: byName('real_person'), all: AssetGroups };
}

async function newGroup(name = 'g1', client = h.client) {
  return client.assets.createAssetGroup({ Name: name, Description: 'contract test' });
}

/** Vendor-side check: sent as is, past the client's own validation. */
const unchecked = (action: string, body?: unknown, client = h.client) =>
  failure(client.assets.invoke(action, body, { validate: false }));

describe('7.3 error rows', () => {
  it('UnsupportedAction 400: unknown or empty Action', async () => {
    for (const action of ['Nope', '', 'listassetgroups']) {
      const err = await failure(h.client.assets.invoke(action, {}));
      expect(err).toBeInstanceOf(RejectedError);
      expect(err).toMatchObject({ status: 400, vendorCode: 'UnsupportedAction' });
    }
  });

  it.each([
    ['CreateAssetGroup', {}, 'Name'],
    ['GetAssetGroup', {}, 'Id'],
    ['UpdateAssetGroup', { Name: 'x' }, 'Id'],
    ['DeleteAssetGroup', {}, 'Id'],
    ['CreateAsset', { URL: media('a.png') }, 'GroupId'],
    ['CreateAsset', { GroupId: 'g' }, 'URL'],
    ['GetAsset', {}, 'Id'],
    ['UpdateAsset', { Name: 'x' }, 'Id'],
    ['DeleteAsset', {}, 'Id'],
  ])('MissingField 400: %s %j names %s', async (action, body, field) => {
    const err = await unchecked(action, body);
    expect(err).toBeInstanceOf(RejectedError);
    expect(err).toMatchObject({ status: 400, vendorCode: 'MissingField', field, endpoint: `assets.${action}` });
    expect(err.message).toContain(`field ${field}`);
  });

  it('MissingField 400: malformed body', async () => {
    const err = await unchecked('CreateAssetGroup', '{not json');
    expect(err).toMatchObject({ name: FailureType.RejectedError, vendorCode: 'MissingField' });
  });

  it('the client refuses the same requests itself, sending nothing', async () => {
    const before = h.emu.inspect().requests.length;
    const err = await failure(h.client.assets.createAssetGroup({} as never));
    expect(err).toMatchObject({ name: FailureType.RejectedError, field: 'Name' });
    expect(err.status).toBeUndefined();
    expect(h.emu.inspect().requests).toHaveLength(before);
  });

  it('InvalidGroupName 400: illegal characters or too long (vendor and client agree)', async () => {
    for (const Name of ['has space', 'semi;colon', 'x'.repeat(51), '表情😀']) {
      const vendor = await unchecked('CreateAssetGroup', { Name });
      expect(vendor).toMatchObject({ name: FailureType.RejectedError, vendorCode: 'InvalidGroupName', field: 'Name' });
      expect(await failure(newGroup(Name))).toMatchObject({
        name: FailureType.RejectedError,
        field: 'Name',
        status: undefined,
      });
    }
    const g = await newGroup('ok');
    expect(await unchecked('UpdateAssetGroup', { Id: g.Id, Name: 'bad name' })).toMatchObject({
      vendorCode: 'InvalidGroupName',
    });
  });

  it('name rules: Chinese characters, letters, digits, - and _, up to 50 characters', async () => {
    const name = `素材-Group_01${'字'.repeat(39)}`;
    expect([...name]).toHaveLength(50);
    const g = await newGroup(name);
    expect(g).toMatchObject({ Name: name, Description: 'contract test' });
    expect(g.Id).toEqual(expect.any(String));
  });

  it('DefaultGroupImmutable 400: default group renamed or deleted', async () => {
    const { def } = await systemGroups();
    const rename = await failure(h.client.assets.updateAssetGroup({ Id: def.Id, Name: 'renamed' }));
    expect(rename).toMatchObject({ name: FailureType.RejectedError, vendorCode: 'DefaultGroupImmutable', status: 400 });
    const del = await failure(h.client.assets.deleteAssetGroup({ Id: def.Id }));
    expect(del).toMatchObject({ vendorCode: 'DefaultGroupImmutable' });
    // Description may still change; the name may be "changed" to itself.
    await h.client.assets.updateAssetGroup({ Id: def.Id, Description: 'mine' });
    expect((await h.client.assets.getAssetGroup({ Id: def.Id })).Description).toBe('mine');
  });

  it('RealPersonGroupImmutable 400: real-person group renamed', async () => {
    const { real } = await systemGroups();
    expect(real.GroupType).toBe('LivenessFace');
    const err = await failure(h.client.assets.updateAssetGroup({ Id: real.Id, Name: 'other' }));
    expect(err).toMatchObject({ name: FailureType.RejectedError, vendorCode: 'RealPersonGroupImmutable', status: 400 });
  });

  it('GroupNotEmpty 400: delete of a group holding assets; allowed once the asset is deleted', async () => {
    const g = await newGroup();
    const a = await h.client.assets.createAsset({ GroupId: g.Id, URL: media('a.png'), AssetType: 'Image', Name: 'a' });
    const err = await failure(h.client.assets.deleteAssetGroup({ Id: g.Id }));
    expect(err).toMatchObject({ name: FailureType.RejectedError, vendorCode: 'GroupNotEmpty', status: 400 });
    await h.client.assets.deleteAsset({ Id: a.Id });
    await h.client.assets.deleteAssetGroup({ Id: g.Id });
    expect(await h.client.assets.findGroupByName('g1')).toBeUndefined();
  });

  it('QuotaExceeded 400: 100 groups per user including the two default groups', async () => {
    for (let i = 0; i < 98; i++) await newGroup(`q${i}`);
    const { all } = await systemGroups();
    expect(all).toHaveLength(100);
    const err = await failure(newGroup('one-too-many'));
    expect(err).toMatchObject({ name: FailureType.RejectedError, vendorCode: 'QuotaExceeded', status: 400 });
    // Per user: the other user is unaffected.
    await newGroup('fine', h.user2);
  });

  it('GroupNotOwned 403 / AssetNotOwned 403', async () => {
    const g = await newGroup();
    const a = await h.client.assets.createAsset({ GroupId: g.Id, URL: media('a.png'), Name: 'a' });
    const other = h.user2.assets;
    const groupCalls = [
      other.getAssetGroup({ Id: g.Id }),
      other.updateAssetGroup({ Id: g.Id, Name: 'x' }),
      other.deleteAssetGroup({ Id: g.Id }),
      other.createAsset({ GroupId: g.Id, URL: media('b.png') }),
    ];
    for (const p of groupCalls) {
      const err = await failure(p);
      expect(err).toBeInstanceOf(ForbiddenError);
      expect(err).toMatchObject({ status: 403, vendorCode: 'GroupNotOwned', retryable: false });
    }
    for (const p of [
      other.getAsset({ Id: a.Id }),
      other.updateAsset({ Id: a.Id, Name: 'x' }),
      other.deleteAsset({ Id: a.Id }),
    ]) {
      const err = await failure(p);
      expect(err).toBeInstanceOf(ForbiddenError);
      expect(err).toMatchObject({ status: 403, vendorCode: 'AssetNotOwned' });
    }
    // ListAssets silently filters out groups the user does not own.
    expect(await other.listAssets({ Filter: { GroupIds: [g.Id] } })).toEqual({ Assets: [], Total: 0 });
    expect((await other.listAssetGroups()).AssetGroups.map((x) => x.Id)).not.toContain(g.Id);
  });

  it('RateLimitExceeded 429: GetAsset over 10 per second, with Retry-After', async () => {
    const g = await newGroup();
    const a = await h.client.assets.createAsset({ GroupId: g.Id, URL: media('a.png') });
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => h.client.assets.getAsset({ Id: a.Id })));
    const limited = results.filter((r) => r.status === 'rejected').map((r) => r.reason);
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeLessThanOrEqual(10);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    for (const err of limited) {
      expect(err).toBeInstanceOf(RateLimitedError);
      expect(err).toMatchObject({ status: 429, vendorCode: 'RateLimitExceeded', retryable: true });
      expect(err.retryAfterMs).toBeGreaterThanOrEqual(1000);
    }
    // Per access token: the other user is not limited; after the window the first one is fine again.
    await expect(h.user2.assets.listAssets()).resolves.toBeDefined();
    h.emu.advanceClock(1_100);
    await expect(h.client.assets.getAsset({ Id: a.Id })).resolves.toMatchObject({ Id: a.Id });
  });

  it('UpstreamCallFailed 502 → retryable UpstreamFailedError', async () => {
    h.emu.setFaults({ 'assets.CreateAsset': { upstream502: { next: 1 } } });
    const g = await newGroup();
    const err = await failure(h.client.assets.createAsset({ GroupId: g.Id, URL: media('a.png') }));
    expect(err).toBeInstanceOf(UpstreamFailedError);
    expect(err).toMatchObject({ status: 502, endpoint: 'assets.CreateAsset', retryable: true });
    expect(err.vendorCode).toMatch(/CallFailed$/);
    expect(h.emu.inspect().assets).toHaveLength(0);
  });

  it('401: invalid access token', async () => {
    const err = await failure(h.make({ accessToken: 'wrong-token' }).assets.listAssetGroups());
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.message).not.toContain('wrong-token');
  });

  it('other parameter errors are 400 → RejectedError naming the field', async () => {
    const err = await unchecked('ListAssetGroups', { Filter: { GroupType: 'Other' } });
    expect(err).toMatchObject({ name: FailureType.RejectedError, status: 400, field: 'Filter.GroupType' });
    const page = await unchecked('ListAssets', { PageNumber: 0 });
    expect(page).toMatchObject({ name: FailureType.RejectedError, status: 400, field: 'PageNumber' });
  });

  it('401: absent access token — the client will not send; the vendor answers 401', async () => {
    const err = await failure(h.make({ accessToken: undefined }).assets.listAssetGroups());
    expect(err).toMatchObject({ name: FailureType.MissingCredentialError, field: 'accessToken' });
    const raw = await failure(
      rawCall(h, {
        endpoint: 'assets.ListAssetGroups',
        method: 'POST',
        path: '/api/asset-management?Action=ListAssetGroups',
        body: {},
      }),
    );
    expect(raw).toBeInstanceOf(UnauthorizedError);
  });

  it('error bodies carry our X-Track-Id as TrackId', async () => {
    const err = await unchecked('GetAsset', {});
    expect(err.traceId).toMatch(/^[0-9a-f]{32}$/);
    const logged = h.emu.inspect().requests.at(-1);
    expect(logged?.trackId).toBe(err.traceId);
  });
});

describe('4.4 rules', () => {
  it('ListAssetGroups: body omitted, empty string or {} all list everything; Filter.GroupType filters', async () => {
    await newGroup();
    const forms: [unknown, boolean][] = [
      [undefined, true],
      ['', false],
      ['""', false],
      [{}, true],
    ];
    for (const [body, validate] of forms) {
      const env = (await h.client.assets.invoke('ListAssetGroups', body, { validate })) as {
        Result: { AssetGroups: unknown[]; Total: number };
      };
      expect(env.Result.Total).toBe(3);
      expect(env.Result.AssetGroups).toHaveLength(3);
    }
    const aigc = await h.client.assets.listAssetGroups({ Filter: { GroupType: 'AIGC' } });
    expect(aigc.AssetGroups.map((g) => g.Name).sort()).toEqual(['default', 'g1']);
    const live = await h.client.assets.listAssetGroups({ Filter: { GroupType: 'LivenessFace' } });
    expect(live.AssetGroups.map((g) => g.Name)).toEqual(['real_person']);
  });

  it('success envelopes: ResponseMetadata on every Action but ListAssetGroups', async () => {
    const g = await newGroup();
    const env = (await h.client.assets.invoke('GetAssetGroup', { Id: g.Id })) as {
      ResponseMetadata: Record<string, string>;
    };
    expect(Object.keys(env.ResponseMetadata).sort()).toEqual(['Action', 'Region', 'RequestId', 'Service', 'Version']);
    expect(env.ResponseMetadata.Action).toBe('GetAssetGroup');
  });

  it('CRUD round trip of a group and an asset; lowercase AssetType is accepted and normalized', async () => {
    const g = await newGroup('crud');
    const got = await h.client.assets.getAssetGroup({ Id: g.Id });
    expect(got).toMatchObject({ Id: g.Id, Name: 'crud', Description: 'contract test' });
    expect(Date.parse(got.CreateTime)).not.toBeNaN();
    await h.client.assets.updateAssetGroup({ Id: g.Id, Name: 'crud-2' });
    expect((await h.client.assets.findGroupByName('crud-2'))?.Id).toBe(g.Id);

    const a = await h.client.assets.createAsset({
      GroupId: g.Id,
      URL: media('clip.mp4'),
      AssetType: 'video',
      Name: 'clip',
    });
    const pending = await h.client.assets.getAsset({ Id: a.Id });
    expect(pending).toMatchObject({ Id: a.Id, AssetType: 'Video', Status: 'Pending', GroupId: g.Id, Name: 'clip' });
    h.emu.advanceClock(1_000);
    const active = await h.client.assets.getAsset({ Id: a.Id });
    expect(active.Status).toBe('Active');
    expect(active.URL).toMatch(/^http/);
    await h.client.assets.updateAsset({ Id: a.Id, Name: 'clip-2' });
    expect((await h.client.assets.findAssetByName(g.Id, 'clip-2'))?.Id).toBe(a.Id);
    await h.client.assets.deleteAsset({ Id: a.Id });
    expect((await h.client.assets.getAsset({ Id: a.Id })).Status).toBe('Deleted');
  });

  it('an asset whose processing fails ends Failed (terminal)', async () => {
    const { def } = await systemGroups();
    const a = await h.client.assets.createAsset({ GroupId: def.Id, URL: media('fail.png') });
    h.emu.advanceClock(1_000);
    expect((await h.client.assets.getAsset({ Id: a.Id })).Status).toBe('Failed');
  });

  it('ListAssets paging: defaults PageNumber 1, PageSize 20; Total counts all; listAllAssets walks pages', async () => {
    const { def } = await systemGroups();
    const g = await newGroup();
    for (let i = 0; i < 25; i++)
      await h.client.assets.createAsset({ GroupId: g.Id, URL: media(`p${i}.png`), Name: `p${i}` });
    await h.client.assets.createAsset({ GroupId: def.Id, URL: media('other.png'), Name: 'other' });

    const first = await h.client.assets.listAssets();
    expect(first.Assets).toHaveLength(20);
    expect(first.Total).toBe(26);
    const inGroup = await h.client.assets.listAssets({ Filter: { GroupIds: [g.Id] }, PageNumber: 2 });
    expect(inGroup.Assets.map((a) => a.Name)).toEqual(['p20', 'p21', 'p22', 'p23', 'p24']);
    expect(inGroup.Total).toBe(25);

    const all = await h.client.assets.listAllAssets({ GroupIds: [g.Id], PageSize: 7 });
    expect(all.map((a) => a.Name)).toEqual(Array.from({ length: 25 }, (_, i) => `p${i}`));
    expect(await h.client.assets.listAllAssets()).toHaveLength(26);
  });

  it('reconcile helpers find what a lost create made', async () => {
    h.emu.setFaults({
      'assets.CreateAssetGroup': { resetAfterCreate: { next: 1 } },
      'assets.CreateAsset': { error500AfterCreate: { next: 1 } },
    });
    const lostGroup = await failure(newGroup('idem-key-123'));
    expect(lostGroup.name).toBe(FailureType.AmbiguousError);
    const g = await h.client.assets.findGroupByName('idem-key-123');
    expect(g).toBeDefined();
    const lostAsset = await failure(
      h.client.assets.createAsset({ GroupId: g!.Id, URL: media('x.png'), Name: 'asset-idem-9' }),
    );
    expect(lostAsset).toMatchObject({ name: FailureType.AmbiguousError, status: 500, retryable: false });
    expect((await h.client.assets.findAssetByName(g!.Id, 'asset-idem-9'))?.GroupId).toBe(g!.Id);
  });

  it('data is isolated per access token', async () => {
    await newGroup('mine');
    expect(await h.user2.assets.findGroupByName('mine')).toBeUndefined();
    expect(h.emu.inspect().groups.every((g) => !JSON.stringify(g).includes(USER_1))).toBe(true);
  });
});
