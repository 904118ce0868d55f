/**
 * Asset management: `POST {identity_url}/api/asset-management?Action=<Name>`
 * with X-Access-Token and a fresh X-Track-Id. Typed methods return the envelope's Result.
 */
import { z } from 'zod';
import { exchange, joinUrl, type CallOptions, type VendorContext } from './context';
import {
  ASSET_ACTION_FIELDS,
  ASSET_ACTIONS,
  assetEnvelopeSchema,
  type Asset,
  type AssetActionName,
  type AssetGroup,
  type AssetRequest,
  type AssetResult,
} from './schemas/assets';
import { validateRequest } from './validate';
import { DEFAULT_PAGE_SIZE } from './documented-values';

export interface InvokeOptions extends CallOptions {
  /** false skips request validation (contract tests of vendor-side checks only). */
  validate?: boolean;
}

export interface ListAllAssetsRequest {
  GroupIds?: string[];
  /** Page size for the walk (default 20, the vendor's default; maximum not documented). */
  PageSize?: number;
}

export interface AssetsApi {
  createAssetGroup: (
    req: AssetRequest<'CreateAssetGroup'>,
    opts?: CallOptions,
  ) => Promise<AssetResult<'CreateAssetGroup'>>;
  /** Sends `{}` when `req` is omitted. */
  listAssetGroups: (
    req?: AssetRequest<'ListAssetGroups'>,
    opts?: CallOptions,
  ) => Promise<AssetResult<'ListAssetGroups'>>;
  getAssetGroup: (req: AssetRequest<'GetAssetGroup'>, opts?: CallOptions) => Promise<AssetResult<'GetAssetGroup'>>;
  updateAssetGroup: (
    req: AssetRequest<'UpdateAssetGroup'>,
    opts?: CallOptions,
  ) => Promise<AssetResult<'UpdateAssetGroup'>>;
  deleteAssetGroup: (
    req: AssetRequest<'DeleteAssetGroup'>,
    opts?: CallOptions,
  ) => Promise<AssetResult<'DeleteAssetGroup'>>;
  createAsset: (req: AssetRequest<'CreateAsset'>, opts?: CallOptions) => Promise<AssetResult<'CreateAsset'>>;
  listAssets: (req?: AssetRequest<'ListAssets'>, opts?: CallOptions) => Promise<AssetResult<'ListAssets'>>;
  /** 429 over 10/s per token → RateLimitedError with retryAfterMs. */
  getAsset: (req: AssetRequest<'GetAsset'>, opts?: CallOptions) => Promise<AssetResult<'GetAsset'>>;
  updateAsset: (req: AssetRequest<'UpdateAsset'>, opts?: CallOptions) => Promise<AssetResult<'UpdateAsset'>>;
  deleteAsset: (req: AssetRequest<'DeleteAsset'>, opts?: CallOptions) => Promise<AssetResult<'DeleteAsset'>>;

  /** Every asset (of the given groups), walking ListAssets pages. Several calls. */
  listAllAssets: (req?: ListAllAssetsRequest, opts?: CallOptions) => Promise<Asset[]>;
  /**
   * Reconcile helper: the asset named `name` in `groupId`, the earliest created if
   * several share it; undefined if none.
   */
  findAssetByName: (groupId: string, name: string, opts?: CallOptions) => Promise<Asset | undefined>;
  /** Reconcile helper: the group named `name` (earliest created if several); undefined if none. */
  findGroupByName: (name: string, opts?: CallOptions) => Promise<AssetGroup | undefined>;

  /**
   * Low level: any Action name with any body (undefined → no body; a string → verbatim).
   * Known Actions are validated (unless `validate: false`) and their envelope parsed.
   * Returns the whole envelope.
   */
  invoke: (action: string, body?: unknown, opts?: InvokeOptions) => Promise<unknown>;
}

/** Guard against a vendor whose Total never matches what pages return. */
const MAX_PAGES = 10_000;

function isKnown(action: string): action is AssetActionName {
  return Object.prototype.hasOwnProperty.call(ASSET_ACTIONS, action);
}

function byCreateTime<T extends { CreateTime: string }>(a: T, b: T): number {
  return Date.parse(a.CreateTime) - Date.parse(b.CreateTime);
}

export function createAssetsApi(ctx: VendorContext): AssetsApi {
  function send(action: string, body: unknown, opts: InvokeOptions, known: AssetActionName | undefined) {
    const endpoint = `assets.${known ?? (action || '(empty)')}`;
    const spec = known ? ASSET_ACTIONS[known] : undefined;
    const sent = spec && opts.validate !== false ? validateRequest(endpoint, spec.request, body) : body;
    return exchange(
      ctx,
      {
        endpoint,
        method: 'POST',
        url: joinUrl(ctx.identityUrl, `/api/asset-management?Action=${encodeURIComponent(action)}`),
        auth: 'accessToken',
        traceHeader: 'X-Track-Id',
        body: sent,
        idempotent: spec?.idempotent ?? false,
        ...(known ? { knownFields: ASSET_ACTION_FIELDS[known] } : {}),
        response: known ? assetEnvelopeSchema(known) : z.unknown(),
      },
      opts,
    );
  }

  async function call<A extends AssetActionName>(
    action: A,
    req: unknown,
    opts: CallOptions = {},
  ): Promise<AssetResult<A>> {
    const envelope = (await send(action, req, opts, action)) as { Result: AssetResult<A> };
    return envelope.Result;
  }

  async function listAllAssets(req: ListAllAssetsRequest = {}, opts?: CallOptions): Promise<Asset[]> {
    const PageSize = req.PageSize ?? DEFAULT_PAGE_SIZE;
    const seen = new Map<string, Asset>();
    for (let PageNumber = 1; PageNumber <= MAX_PAGES; PageNumber++) {
      const page = await call(
        'ListAssets',
        { ...(req.GroupIds ? { Filter: { GroupIds: req.GroupIds } } : {}), PageNumber, PageSize },
        opts,
      );
      // Keyed by Id: a create between two pages shifts items, which may repeat one.
      for (const a of page.Assets) seen.set(a.Id, a);
      if (page.Assets.length < PageSize || PageNumber * PageSize >= page.Total) break;
    }
    return [...seen.values()];
  }

  return {
    createAssetGroup: (req, opts) => call('CreateAssetGroup', req, opts),
    listAssetGroups: (req, opts) => call('ListAssetGroups', req ?? {}, opts),
    getAssetGroup: (req, opts) => call('GetAssetGroup', req, opts),
    updateAssetGroup: (req, opts) => call('UpdateAssetGroup', req, opts),
    deleteAssetGroup: (req, opts) => call('DeleteAssetGroup', req, opts),
    createAsset: (req, opts) => call('CreateAsset', req, opts),
    listAssets: (req, opts) => call('ListAssets', req ?? {}, opts),
    getAsset: (req, opts) => call('GetAsset', req, opts),
    updateAsset: (req, opts) => call('UpdateAsset', req, opts),
    deleteAsset: (req, opts) => call('DeleteAsset', req, opts),
    listAllAssets,
    async findAssetByName(groupId, name, opts) {
      const all = await listAllAssets({ GroupIds: [groupId] }, opts);
      return all.filter((a) => a.GroupId === groupId && a.Name === name).sort(byCreateTime)[0];
    },
    async findGroupByName(name, opts) {
      const { AssetGroups } = await call('ListAssetGroups', {}, opts);
      return AssetGroups.filter((g) => g.Name === name).sort(byCreateTime)[0];
    },
    invoke: async (action, body, opts = {}) => send(action, body, opts, isKnown(action) ? action : undefined),
  };
}
