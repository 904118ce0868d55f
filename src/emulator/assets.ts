/**
 * Asset management (docs/vendor-contract.md): ten Actions on one POST path, data
 * isolated per access token, errors as {Code, Message, TrackId}. Each user starts with
 * two system groups: "default" (AIGC) and "real_person" (LivenessFace). The upstream
 * dialect answers Volcengine OpenAPI style: `Processing`, lists as Items + TotalCount,
 * ResponseMetadata on every answer, null for what is absent (errors: dialect.ts).
 */
import {
  DEFAULT_PAGE_SIZE,
  GROUP_NAME_CHARS,
  GROUP_NAME_MAX,
  SIGNED_ASSET_URL_VALIDITY_MS,
} from '../vendor-api/documented-values';
import { iso } from './clock';
import type { EmulatorContext } from './context';
import { noneAs, responseMetadata, withNulls, type Dialect } from './dialect';
import { assetError } from './errors';
import { ASSET_ACTIONS, type AssetAction } from './faults';
import { header, isRecord, json, parseJson, wrongContentType, type EmuRequest, type Reply } from './http';
import { newId } from './ids';
import { advanceDue, forceTo, staged } from './stages';
import type { AssetRecord, AssetStatus, GroupRecord } from './store';
import { hiddenFromQueries, reportedState } from './task-faults';
import { durationFor } from './timings';
import { baseName, isPublicHttpUrl, mediaTypeOf, normalizeMediaType, type MediaType } from './urls';

/** URL marker that makes CreateAsset end Failed (documented rule). */
export const FAIL_ASSET_MARKER = 'fail';
/** Largest PageSize accepted (the spec shows none). */
export const MAX_PAGE_SIZE = 100;

/** A spec error (7.3), thrown by an Action and turned into its body by the router. */
class AssetApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}
const missing = (field: string) => new AssetApiError(400, 'MissingField', `${field} is required`);
const invalid = (message: string) => new AssetApiError(400, 'InvalidParameter', message);

type Body = Record<string, unknown>;
type ActionFn = (ctx: EmulatorContext, user: string, body: Body, trackId: string) => { result: object; id?: string };

export function handleAssetManagement(ctx: EmulatorContext, req: EmuRequest): Reply {
  const trackId = header(req, 'x-track-id') ?? newId.trace();
  const rawAction = req.query.get('Action') ?? '';
  const meta = { trackId, action: rawAction || undefined };
  if (req.method !== 'POST') return assetError(405, 'MethodNotAllowed', 'use POST', trackId, meta);
  const auth = ctx.principals.accessToken(req);
  if (!auth.ok) {
    const message = auth.reason === 'missing' ? 'X-Access-Token header is required' : 'access token is not valid';
    return assetError(401, 'InvalidAccessToken', message, trackId, meta);
  }
  const withUser = { ...meta, principal: auth.principal };
  if (!(ASSET_ACTIONS as readonly string[]).includes(rawAction)) {
    const message = rawAction ? `Action ${rawAction} is not supported` : 'Action query parameter is required';
    return assetError(400, 'UnsupportedAction', message, trackId, withUser);
  }
  const action = rawAction as AssetAction;
  if (wrongContentType(req)) {
    return assetError(415, 'UnsupportedMediaType', 'Content-Type must be application/json', trackId, withUser);
  }
  const parsed = parseJson(req.body);
  if (!parsed.ok) return assetError(400, 'MissingField', 'request body is not valid JSON', trackId, withUser);
  // ListAssetGroups takes an omitted body, an empty string or {} alike (docs/vendor-contract.md).
  const value =
    parsed.empty || parsed.value === null || (action === 'ListAssetGroups' && parsed.value === '') ? {} : parsed.value;
  if (!isRecord(value)) return assetError(400, 'MissingField', 'request body must be a JSON object', trackId, withUser);

  try {
    const { result, id } = ACTIONS[action](ctx, auth.principal, value, trackId);
    const replyMeta = { ...withUser, resourceId: id ?? (typeof value.Id === 'string' ? value.Id : undefined) };
    // The spec shows only Result for ListAssetGroups; the upstream style always has metadata.
    const body =
      action === 'ListAssetGroups' && ctx.dialect !== 'upstream'
        ? { Result: result }
        : { ResponseMetadata: responseMetadata(action, trackId), Result: result };
    return json(200, body, replyMeta, { 'x-track-id': trackId });
  } catch (err) {
    if (!(err instanceof AssetApiError)) throw err;
    return assetError(err.status, err.code, err.message, trackId, withUser, err.headers);
  }
}

const ACTIONS: Record<AssetAction, ActionFn> = {
  CreateAssetGroup(ctx, user, body, trackId) {
    const name = requiredString(body, 'Name');
    checkGroupName(name);
    const description = optionalString(body, 'Description') ?? '';
    const owned = [...ctx.store.groups.values()].filter((g) => g.owner === user).length;
    if (owned >= ctx.limits.groupQuota) {
      throw new AssetApiError(
        400,
        'QuotaExceeded',
        `at most ${ctx.limits.groupQuota} asset groups per user, including default groups`,
      );
    }
    const group = addGroup(ctx, { owner: user, Name: name, Description: description, GroupType: 'AIGC', trackId });
    return { result: { Id: group.Id, Name: group.Name, Description: group.Description }, id: group.Id };
  },

  ListAssetGroups(ctx, user, body) {
    const filter = optionalRecord(body, 'Filter');
    const type = filter ? optionalString(filter, 'GroupType', 'Filter.GroupType') : undefined;
    if (type !== undefined && type !== 'AIGC' && type !== 'LivenessFace') {
      throw invalid('Filter.GroupType must be AIGC or LivenessFace');
    }
    const groups = [...ctx.store.groups.values()]
      .filter((g) => g.owner === user && (type === undefined || g.GroupType === type))
      .sort(byCreation);
    return {
      result: listResult(
        ctx.dialect,
        'AssetGroups',
        groups.map((g) => groupView(ctx.dialect, g)),
        groups.length,
      ),
    };
  },

  GetAssetGroup(ctx, user, body) {
    const g = ownedGroup(ctx, user, requiredString(body, 'Id'));
    const result = {
      Id: g.Id,
      Name: g.Name,
      Description: g.Description,
      CreateTime: iso(g.createdAtMs),
      UpdateTime: iso(g.updatedAtMs),
    };
    return {
      result: withNulls(ctx.dialect, { ...result, Description: noneAs(ctx.dialect, g.Description) }, ['GroupType']),
    };
  },

  UpdateAssetGroup(ctx, user, body) {
    const g = ownedGroup(ctx, user, requiredString(body, 'Id'));
    const name = optionalString(body, 'Name');
    const description = optionalString(body, 'Description');
    if (name !== undefined && name !== g.Name) {
      if (g.system === 'default')
        throw new AssetApiError(400, 'DefaultGroupImmutable', 'the default group cannot be renamed');
      if (g.system === 'real_person') {
        throw new AssetApiError(400, 'RealPersonGroupImmutable', 'the real-person group cannot be renamed');
      }
      checkGroupName(name);
      g.Name = name;
    }
    if (description !== undefined) g.Description = description;
    g.updatedAtMs = ctx.clock.now();
    return { result: {} };
  },

  DeleteAssetGroup(ctx, user, body) {
    const g = ownedGroup(ctx, user, requiredString(body, 'Id'));
    if (g.system === 'default')
      throw new AssetApiError(400, 'DefaultGroupImmutable', 'the default group cannot be deleted');
    if (g.system === 'real_person') {
      throw new AssetApiError(400, 'RealPersonGroupImmutable', 'the real-person group cannot be deleted');
    }
    const held = [...ctx.store.assets.values()].filter((a) => a.GroupId === g.Id && a.status !== 'Deleted').length;
    if (held > 0) throw new AssetApiError(400, 'GroupNotEmpty', `group still holds ${held} asset(s)`);
    ctx.store.groups.delete(g.Id);
    return { result: {} };
  },

  CreateAsset(ctx, user, body, trackId) {
    const groupId = requiredString(body, 'GroupId');
    const url = requiredString(body, 'URL');
    const group = ownedGroup(ctx, user, groupId);
    if (!isPublicHttpUrl(url, ctx.selfHosts))
      throw invalid('URL must be a public http(s) URL reachable by the upstream');
    const typeText = optionalString(body, 'AssetType');
    const assetType = typeText === undefined ? (mediaTypeOf(url) ?? 'Image') : normalizeMediaType(typeText);
    if (!assetType) throw invalid('AssetType must be Image, Video or Audio');
    const name = optionalString(body, 'Name') ?? baseName(url);
    const now = ctx.clock.now();
    const id = newId.asset();
    const fails = url.toLowerCase().includes(FAIL_ASSET_MARKER);
    const rec: AssetRecord = {
      ...staged<AssetStatus>('Pending', now, [
        [fails ? 'Failed' : 'Active', durationFor(ctx.timings.assetProcessingMs, id)],
      ]),
      Id: id,
      Name: name,
      AssetType: assetType,
      GroupId: group.Id,
      owner: user,
      sourceUrl: url,
      origin: 'CreateAsset',
      createdAtMs: now,
      trackId,
    };
    ctx.store.assets.set(id, rec);
    return { result: { Id: id }, id };
  },

  ListAssets(ctx, user, body) {
    const filter = optionalRecord(body, 'Filter');
    const groupIds = filter?.GroupIds;
    if (groupIds !== undefined && (!Array.isArray(groupIds) || groupIds.some((g) => typeof g !== 'string'))) {
      throw invalid('Filter.GroupIds must be an array of strings');
    }
    const pageNumber = optionalPositiveInt(body, 'PageNumber') ?? 1;
    const pageSize = optionalPositiveInt(body, 'PageSize') ?? DEFAULT_PAGE_SIZE;
    if (pageSize > MAX_PAGE_SIZE) throw invalid(`PageSize must be at most ${MAX_PAGE_SIZE}`);
    // Groups the user does not own are silently filtered out (docs/vendor-contract.md); [] means no filter.
    const wanted = groupIds && groupIds.length > 0 ? new Set(groupIds as string[]) : undefined;
    const assets = [...ctx.store.assets.values()]
      .filter((a) => a.owner === user && a.status !== 'Deleted' && (!wanted || wanted.has(a.GroupId)))
      .sort(byCreation);
    const page = assets.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
    const views = page.map((a) => assetView(ctx.dialect, a, a.sourceUrl));
    return { result: listResult(ctx.dialect, 'Assets', views, assets.length) };
  },

  GetAsset(ctx, user, body) {
    checkGetAssetRate(ctx, user);
    const a = ownedAsset(ctx, user, requiredString(body, 'Id'));
    // Read-after-write lag (task fault): a new asset is not yet known, i.e. "not owned".
    if (hiddenFromQueries(ctx, a)) throw notOwned(a.Id);
    const status = reportedState(a);
    return { result: assetView(ctx.dialect, a, status === 'Active' ? signedAssetUrl(ctx, a) : '', status) };
  },

  UpdateAsset(ctx, user, body) {
    const a = ownedAsset(ctx, user, requiredString(body, 'Id'));
    const name = optionalString(body, 'Name');
    if (a.status === 'Deleted') throw invalid(`asset ${a.Id} is deleted`);
    if (name !== undefined) a.Name = name;
    a.updatedAtMs = ctx.clock.now();
    return { result: {} };
  },

  DeleteAsset(ctx, user, body) {
    const a = ownedAsset(ctx, user, requiredString(body, 'Id'));
    // Deleted is terminal and kept, so a retried delete succeeds and GetAsset shows it.
    if (a.status !== 'Deleted') forceTo(a, 'Deleted', ctx.clock.now());
    return { result: {} };
  },
};

/** Scheduler step: Pending assets become Active or Failed when due. */
export function advanceAssets(ctx: EmulatorContext, nowMs: number): void {
  for (const rec of ctx.store.assets.values()) {
    if (rec.plan.length > 0) advanceDue(rec, nowMs, () => undefined);
  }
}

/** Gives every configured user the two system groups (at start and after reset). */
export function seedSystemGroups(ctx: EmulatorContext): void {
  for (const owner of ctx.principals.users()) {
    addGroup(ctx, {
      owner,
      Name: 'default',
      Description: 'system default group',
      GroupType: 'AIGC',
      system: 'default',
    });
    addGroup(ctx, {
      owner,
      Name: 'real_person',
      Description: 'real-person authorized group',
      GroupType: 'LivenessFace',
      system: 'real_person',
    });
  }
}

/** The user's group; undefined both for ids never seen and for other users' groups. */
export function findOwnedGroup(ctx: EmulatorContext, user: string, id: string): GroupRecord | undefined {
  const g = ctx.store.groups.get(id);
  return g && g.owner === user ? g : undefined;
}

export function systemGroup(
  ctx: EmulatorContext,
  user: string,
  kind: 'default' | 'real_person',
): GroupRecord | undefined {
  return [...ctx.store.groups.values()].find((g) => g.owner === user && g.system === kind);
}

/** An asset that passed review: Active at once, in the given group. */
export function addReviewedAsset(
  ctx: EmulatorContext,
  a: { owner: string; groupId: string; type: MediaType; url: string; reviewTaskId: string; atMs: number },
): AssetRecord {
  const id = newId.asset();
  const rec: AssetRecord = {
    ...staged<AssetStatus>('Active', a.atMs, []),
    Id: id,
    Name: baseName(a.url),
    AssetType: a.type,
    GroupId: a.groupId,
    owner: a.owner,
    sourceUrl: a.url,
    origin: 'review',
    reviewTaskId: a.reviewTaskId,
    createdAtMs: a.atMs,
  };
  ctx.store.assets.set(id, rec);
  return rec;
}

export const assetMediaPath = (id: string): string => `/media/assets/${id}`;

/** GetAsset's URL: signed, valid about 12 h; it redirects to the uploaded source. */
export function signedAssetUrl(ctx: EmulatorContext, a: AssetRecord): string {
  const path = assetMediaPath(a.Id);
  return `${ctx.baseUrl}${path}?${ctx.signer.sign(path, ctx.clock.now() + SIGNED_ASSET_URL_VALIDITY_MS)}`;
}

function addGroup(
  ctx: EmulatorContext,
  g: Pick<GroupRecord, 'owner' | 'Name' | 'Description' | 'GroupType' | 'system' | 'trackId'>,
): GroupRecord {
  const now = ctx.clock.now();
  const rec: GroupRecord = { ...g, Id: newId.group(), createdAtMs: now, updatedAtMs: now };
  ctx.store.groups.set(rec.Id, rec);
  return rec;
}

function checkGetAssetRate(ctx: EmulatorContext, user: string): void {
  const now = ctx.clock.now();
  const recent = (ctx.store.getAssetWindow.get(user) ?? []).filter((t) => t > now - 1000);
  if (recent.length >= ctx.limits.getAssetPerSecond) {
    const retryAfter = Math.max(1, Math.ceil((recent[0] + 1000 - now) / 1000));
    ctx.store.getAssetWindow.set(user, recent);
    throw new AssetApiError(
      429,
      'RateLimitExceeded',
      `GetAsset is limited to ${ctx.limits.getAssetPerSecond} calls per second per access token`,
      { 'retry-after': String(retryAfter) },
    );
  }
  recent.push(now); // only answered calls count toward the window
  ctx.store.getAssetWindow.set(user, recent);
}

function ownedGroup(ctx: EmulatorContext, user: string, id: string): GroupRecord {
  const g = findOwnedGroup(ctx, user, id);
  if (!g)
    throw new AssetApiError(403, 'GroupNotOwned', `asset group ${id} does not exist or is not owned by this user`);
  return g;
}

const notOwned = (id: string) =>
  new AssetApiError(403, 'AssetNotOwned', `asset ${id} does not exist or is not owned by this user`);

function ownedAsset(ctx: EmulatorContext, user: string, id: string): AssetRecord {
  const a = ctx.store.assets.get(id);
  if (!a || a.owner !== user) throw notOwned(id);
  return a;
}

function checkGroupName(name: string): void {
  if ([...name].length > GROUP_NAME_MAX)
    throw new AssetApiError(400, 'InvalidGroupName', `Name is longer than ${GROUP_NAME_MAX} characters`);
  if (!GROUP_NAME_CHARS.test(name)) {
    throw new AssetApiError(400, 'InvalidGroupName', 'Name may hold only Chinese characters, letters, digits, - and _');
  }
}

function requiredString(body: Body, field: string): string {
  const v = body[field];
  if (typeof v !== 'string' || v === '') throw missing(field);
  return v;
}

function optionalString(body: Body, field: string, label = field): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`${label} must be a string`);
  return v;
}

function optionalRecord(body: Body, field: string): Body | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw invalid(`${field} must be an object`);
  return v;
}

function optionalPositiveInt(body: Body, field: string): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!Number.isInteger(v) || (v as number) < 1) throw invalid(`${field} must be an integer >= 1`);
  return v as number;
}

const byCreation = (a: { createdAtMs: number }, b: { createdAtMs: number }): number => a.createdAtMs - b.createdAtMs;

/** A list Result: `{<list>, Total}` as the spec shows, or Volcengine style `{Items, TotalCount}`. */
function listResult(dialect: Dialect, list: 'Assets' | 'AssetGroups', items: object[], total: number): object {
  return dialect === 'upstream' ? { Items: items, TotalCount: total } : { [list]: items, Total: total };
}

function groupView(dialect: Dialect, g: GroupRecord): Record<string, unknown> {
  return {
    Id: g.Id,
    Name: g.Name,
    Description: noneAs(dialect, g.Description),
    GroupType: g.GroupType,
    CreateTime: iso(g.createdAtMs),
    UpdateTime: iso(g.updatedAtMs),
  };
}

/** An asset as listed or got; the upstream calls Pending `Processing`. */
function assetView(dialect: Dialect, a: AssetRecord, url: string, status: string = a.status): Record<string, unknown> {
  return {
    Id: a.Id,
    Name: a.Name,
    AssetType: a.AssetType,
    GroupId: a.GroupId,
    Status: dialect === 'upstream' && status === 'Pending' ? 'Processing' : status,
    URL: noneAs(dialect, url),
    CreateTime: iso(a.createdAtMs),
    UpdateTime: iso(a.updatedAtMs),
  };
}
