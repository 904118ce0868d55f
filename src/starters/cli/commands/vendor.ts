/**
 * `reelflow groups|assets|review …`: the typed vendor client from the command line.
 * Addresses from VENDOR_BASE_URL / VENDOR_IDENTITY_URL, secrets from a credential
 * profile in the environment (REELFLOW_PROFILE_<NAME>_*). Secrets are never printed:
 * they live only inside the client, and vendor error text is scrubbed by it.
 */
import {
  loadVendorConfig,
  resolveProfile,
  type Asset,
  type AssetGroup,
  type ReviewTask,
  type VendorClient,
  vendorClientFor,
} from '../../../vendor-api';
import { CommandContext, keyValues, table } from '../output';
import { UsageError } from '../spec';

/**
 * Review and asset management authenticate with the access token only (docs/vendor-contract.md,
 * "How each interface behaves").
 */
export function vendorClientFromEnv(env: NodeJS.ProcessEnv, profile = 'default'): VendorClient {
  const config = loadVendorConfig(env);
  const creds = resolveProfile(profile, env, ['accessToken']);
  return vendorClientFor(config, creds);
}

function groupRows(groups: AssetGroup[]): string[] {
  return table(
    ['ID', 'NAME', 'TYPE', 'CREATED', 'DESCRIPTION'],
    groups.map((g) => [g.Id, g.Name, g.GroupType, g.CreateTime, g.Description]),
  );
}

function assetRows(assets: Asset[]): string[] {
  return table(
    ['ID', 'NAME', 'TYPE', 'STATUS', 'GROUP', 'CREATED'],
    assets.map((a) => [a.Id, a.Name, a.AssetType, a.Status, a.GroupId, a.CreateTime]),
  );
}

function reviewLines(task: ReviewTask): string[] {
  const lines = [
    `review task ${task.task_id}: ${task.status}` +
      (task.total_count !== undefined ? ` (${task.done_count ?? 0}/${task.total_count} done)` : ''),
  ];
  const items = task.result?.items ?? [];
  if (items.length) {
    lines.push(
      ...table(
        ['PASSED', 'SOURCE', 'ASSET URL', 'ERROR'],
        items.map((i) => [
          i.submit_review_status === 1 ? 'yes' : 'no',
          i.source_url,
          i.asset_url,
          i.error_code !== undefined
            ? `${i.error_code}${i.error_message ? `: ${i.error_message}` : ''}`
            : i.error_message,
        ]),
      ).map((l) => `  ${l}`),
    );
  }
  return lines;
}

type Handler = (ctx: CommandContext, vendor: VendorClient) => Promise<number>;

function required(ctx: CommandContext, name: string): string {
  const v = ctx.str(name);
  if (v === undefined) throw new UsageError(`"${ctx.name}" needs --${name}`, `--${name}`, ctx.name);
  return v;
}

const capitalized = (t: string) =>
  (t.charAt(0).toUpperCase() + t.slice(1).toLowerCase()) as 'Image' | 'Video' | 'Audio';

const HANDLERS: Record<string, Handler> = {
  async 'groups list'(ctx, v) {
    const type = ctx.str('type') as 'AIGC' | 'LivenessFace' | undefined;
    const res = await v.assets.listAssetGroups(type ? { Filter: { GroupType: type } } : {});
    ctx.emit(res, () => [...groupRows(res.AssetGroups), `${res.Total} group(s)`]);
    return 0;
  },
  async 'groups get'(ctx, v) {
    const res = await v.assets.getAssetGroup({ Id: ctx.positionals[0] });
    ctx.emit(res, () => keyValues(res));
    return 0;
  },
  async 'groups create'(ctx, v) {
    const description = ctx.str('description');
    const res = await v.assets.createAssetGroup({
      Name: ctx.positionals[0],
      ...(description !== undefined ? { Description: description } : {}),
    });
    ctx.emit(res, () => [`created group ${res.Id} "${res.Name}"`]);
    return 0;
  },
  async 'groups update'(ctx, v) {
    const name = ctx.str('name');
    const description = ctx.str('description');
    if (name === undefined && description === undefined) {
      throw new UsageError('"groups update" needs --name and/or --description', '--name', ctx.name);
    }
    const Id = ctx.positionals[0];
    await v.assets.updateAssetGroup({
      Id,
      ...(name !== undefined ? { Name: name } : {}),
      ...(description !== undefined ? { Description: description } : {}),
    });
    ctx.emit({ Id, updated: true }, () => [`updated group ${Id}`]);
    return 0;
  },
  async 'groups delete'(ctx, v) {
    const Id = ctx.positionals[0];
    await v.assets.deleteAssetGroup({ Id });
    ctx.emit({ Id, deleted: true }, () => [`deleted group ${Id}`]);
    return 0;
  },
  async 'assets list'(ctx, v) {
    const groups = ctx.list('group');
    if (ctx.bool('all')) {
      if (ctx.str('page') !== undefined)
        throw new UsageError('--all walks every page; drop --page', '--page', ctx.name);
      const pageSize = ctx.int('page-size');
      const assets = await v.assets.listAllAssets({
        ...(groups ? { GroupIds: groups } : {}),
        ...(pageSize ? { PageSize: pageSize } : {}),
      });
      ctx.emit({ Assets: assets, Total: assets.length }, () => [...assetRows(assets), `${assets.length} asset(s)`]);
      return 0;
    }
    const page = ctx.int('page');
    const pageSize = ctx.int('page-size');
    const res = await v.assets.listAssets({
      ...(groups ? { Filter: { GroupIds: groups } } : {}),
      ...(page ? { PageNumber: page } : {}),
      ...(pageSize ? { PageSize: pageSize } : {}),
    });
    ctx.emit(res, () => [
      ...assetRows(res.Assets),
      `${res.Assets.length} of ${res.Total} asset(s)${res.Assets.length < res.Total ? ' (--page, --page-size or --all for more)' : ''}`,
    ]);
    return 0;
  },
  async 'assets get'(ctx, v) {
    const res = await v.assets.getAsset({ Id: ctx.positionals[0] });
    ctx.emit(res, () => keyValues(res));
    return 0;
  },
  async 'assets create'(ctx, v) {
    const type = ctx.str('type');
    const name = ctx.str('name');
    const res = await v.assets.createAsset({
      GroupId: required(ctx, 'group'),
      URL: required(ctx, 'url'),
      ...(type ? { AssetType: capitalized(type) } : {}),
      ...(name !== undefined ? { Name: name } : {}),
    });
    ctx.emit(res, () => [`created asset ${res.Id} (Pending; check with: reelflow assets get ${res.Id})`]);
    return 0;
  },
  async 'assets update'(ctx, v) {
    const Id = ctx.positionals[0];
    await v.assets.updateAsset({ Id, Name: required(ctx, 'name') });
    ctx.emit({ Id, updated: true }, () => [`updated asset ${Id}`]);
    return 0;
  },
  async 'assets delete'(ctx, v) {
    const Id = ctx.positionals[0];
    await v.assets.deleteAsset({ Id });
    ctx.emit({ Id, deleted: true }, () => [`deleted asset ${Id}`]);
    return 0;
  },
  async 'review submit'(ctx, v) {
    const type = ctx.str('type') as 'Image' | 'Video' | 'Audio' | undefined;
    const group = ctx.str('group');
    const callback = ctx.str('callback-url');
    const req = {
      images: ctx.positionals,
      ...(type ? { asset_type: type } : {}),
      ...(group ? { group_id: group } : {}),
      ...(callback ? { callback_url: callback } : {}),
    };
    if (ctx.bool('async')) {
      const res = await v.review.submitAsync(req);
      ctx.emit(res, () => [
        `review task ${res.task_id}: ${res.status} (check with: reelflow review get ${res.task_id})`,
      ]);
      return 0;
    }
    const res = await v.review.submitSync(req);
    ctx.emit(res, () => reviewLines(res));
    return 0;
  },
  async 'review get'(ctx, v) {
    const res = await v.review.getTask(ctx.positionals[0]);
    ctx.emit(res, () => reviewLines(res));
    return 0;
  },
};

export async function runVendorCommand(ctx: CommandContext): Promise<number> {
  const handler = HANDLERS[ctx.name];
  if (!handler) throw new UsageError(`unknown vendor command "${ctx.name}"`);
  const vendor = vendorClientFromEnv(ctx.io.env, ctx.str('profile') ?? 'default');
  try {
    return await handler(ctx, vendor);
  } finally {
    await vendor.close();
  }
}
