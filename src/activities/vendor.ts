/**
 * One activity per vendor endpoint; each performs exactly ONE vendor HTTP call per
 * attempt. Vendor errors become ApplicationFailures whose `type` is the error class
 * name, so the workflow decides from the type (see src/workflows/lib/failures.ts).
 * Inputs and results carry no secrets: the profile name selects credentials here.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { redactCallbackTokens } from '../vendor-api/callback-redaction';
import { FailureType } from '../failures';
import { MIN_QUERY_INTERVAL_MS, RATE_LIMIT_WAIT_MS } from '../vendor-api/assumed-values';
import { toFailureInfo, VendorConfigError, VendorError } from '../vendor-api/errors';
import { countedCall } from '../metrics/activity';
import { QuerySpacing, taskKey } from './query-spacing';
import { GrantReader, awaitGrant } from './grant-pull';
import type { PulledAsk } from '../contract/ledger';
import type { ActivityDeps, VendorInterfaceName } from './deps';

/** Which callback URL, if any, a create should carry: chosen by the workflow, built here. */
export interface CallbackRef {
  step: string;
  attempt: number;
  /** The pipeline's first run id: the URL binds it (absent: a v1 URL, as before runs were bound). */
  run?: string;
}

/** Minimum wait after a 429 on these queries: their interface's minimum interval. */
const MIN_RATE_LIMIT_WAIT_MS: Record<string, number> = {
  'assets.GetAsset': MIN_QUERY_INTERVAL_MS.asset,
  'review.getTask': MIN_QUERY_INTERVAL_MS.review,
};

function toApplicationFailure(err: unknown): unknown {
  if (!(err instanceof VendorError) && !(err instanceof VendorConfigError)) return err;
  const info = toFailureInfo(err);
  let nextRetryDelay: number | undefined;
  if (info.type === FailureType.RateLimitedError) {
    const floor = MIN_RATE_LIMIT_WAIT_MS[info.endpoint ?? ''] ?? RATE_LIMIT_WAIT_MS;
    nextRetryDelay = Math.max(info.retryAfterMs ?? floor, floor);
  }
  return ApplicationFailure.create({
    type: info.type,
    message: info.message,
    nonRetryable: !info.retryable,
    details: [info],
    nextRetryDelay,
  });
}

/** One vendor call, counted by endpoint and outcome (reelflow_vendor_calls_total). */
async function call<T>(endpoint: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  try {
    return await countedCall(endpoint, () => fn(Context.current().cancellationSignal));
  } catch (err) {
    throw toApplicationFailure(err);
  }
}

/** A query of one vendor task, at least `minMs` after this process's previous query of it ended. */
async function query<T>(
  spacing: QuerySpacing,
  endpoint: string,
  taskId: string,
  minMs: number,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const signal = Context.current().cancellationSignal;
  return spacing.spaced(taskKey(endpoint, taskId), minMs, () => call(endpoint, fn), signal);
}

function callbackUrl(deps: ActivityDeps, ref: CallbackRef | undefined): string | undefined {
  if (!ref || !deps.callbackUrlFor) return undefined;
  const workflowId = Context.current().info.workflowExecution?.workflowId;
  return workflowId ? deps.callbackUrlFor(workflowId, ref.step, ref.attempt, ref.run) : undefined;
}

export interface ProfileInput {
  profile: string;
}

/** A create's input: its profile, and the plan grant to read before the call (grant-pull.ts), if any. */
export interface CreateInput extends ProfileInput {
  grant?: PulledAsk;
}

/**
 * A create on an interface whose start-up check failed for this profile fails here, before
 * any vendor call: non-retryable, naming the check (docs/doctor.md, "At worker start").
 */
function refuseUnchecked(deps: ActivityDeps, profile: string, iface: VendorInterfaceName): void {
  const failed = deps.vendorCheckFailed?.(profile, iface);
  if (failed === undefined) return;
  throw ApplicationFailure.nonRetryable(
    `the worker's start-up check of vendor ${iface} for profile "${profile}" failed: ${failed} (fix it, then restart the worker; \`reelflow doctor\` shows every check)`,
    FailureType.VendorCheckFailed,
  );
}

/** Before any create's vendor call: the interface's start-up check, then the pipeline's grant. */
async function beforeCreate(deps: ActivityDeps, grants: GrantReader, input: CreateInput, iface: VendorInterfaceName) {
  refuseUnchecked(deps, input.profile, iface);
  await awaitGrant(grants, input.grant);
}

/** Review: submit a batch, read its task. */
function reviewActivities(deps: ActivityDeps, spacing: QuerySpacing, grants: GrantReader) {
  const v = (profile: string) => deps.vendorFor(profile);
  return {
    reviewSubmit: async (
      input: CreateInput & {
        urls: string[];
        assetType: string;
        groupId?: string;
        groupSource?: '' | 'real_person';
        callback?: CallbackRef;
      },
    ): Promise<{ taskId: string; callbackUsed: boolean }> => {
      await beforeCreate(deps, grants, input, 'review');
      const url = callbackUrl(deps, input.callback);
      const res = await call('review.submitAsync', (signal) =>
        v(input.profile).review.submitAsync(
          {
            images: input.urls,
            asset_type: input.assetType as 'Image' | 'Video' | 'Audio',
            ...(input.groupId ? { group_id: input.groupId } : {}),
            ...(input.groupSource !== undefined ? { group_source: input.groupSource } : {}),
            ...(url ? { callback_url: url } : {}),
          },
          { signal },
        ),
      );
      return { taskId: res.task_id, callbackUsed: Boolean(url) };
    },
    /** `status` is the vendor's as is (possibly a state reelflow does not know). */
    reviewGetTask: async (input: ProfileInput & { taskId: string }) => {
      const t = await query(spacing, 'review.getTask', input.taskId, MIN_QUERY_INTERVAL_MS.review, (signal) =>
        v(input.profile).review.getTask(input.taskId, { signal }),
      );
      return {
        taskId: t.task_id,
        status: t.status,
        total: t.total_count,
        done: t.done_count,
        items: (t.result?.items ?? []).map((i) => ({
          sourceUrl: i.source_url,
          passed: i.submit_review_status === 1,
          assetUrl: i.asset_url,
          assetId: i.asset_id,
          downstreamFinalUrl: i.downstream_final_url,
          errorCode: i.error_code === undefined ? undefined : String(i.error_code),
          errorMessage: i.error_message,
        })),
      };
    },
  };
}

/** Asset management: groups, assets, and GetAsset (on its own rate-limited queue). */
function assetActivities(deps: ActivityDeps, grants: GrantReader) {
  const v = (profile: string) => deps.vendorFor(profile);
  return {
    listAssetGroups: async (input: ProfileInput) => {
      const r = await call('assets.ListAssetGroups', (signal) =>
        v(input.profile).assets.listAssetGroups({}, { signal }),
      );
      return r.AssetGroups.map((g) => ({ id: g.Id, name: g.Name, groupType: g.GroupType }));
    },
    getAssetGroup: async (input: ProfileInput & { id: string }) => {
      const g = await call('assets.GetAssetGroup', (signal) =>
        v(input.profile).assets.getAssetGroup({ Id: input.id }, { signal }),
      );
      return { id: g.Id, name: g.Name };
    },
    createAssetGroup: async (input: CreateInput & { name: string; description?: string }) => {
      await beforeCreate(deps, grants, input, 'assets');
      const g = await call('assets.CreateAssetGroup', (signal) =>
        v(input.profile).assets.createAssetGroup(
          { Name: input.name, ...(input.description ? { Description: input.description } : {}) },
          { signal },
        ),
      );
      return { id: g.Id };
    },
    listAssetsPage: async (input: ProfileInput & { groupId: string; pageNumber: number; pageSize: number }) => {
      const r = await call('assets.ListAssets', (signal) =>
        v(input.profile).assets.listAssets(
          { Filter: { GroupIds: [input.groupId] }, PageNumber: input.pageNumber, PageSize: input.pageSize },
          { signal },
        ),
      );
      return { total: r.Total, assets: r.Assets.map((a) => ({ id: a.Id, name: a.Name, status: a.Status })) };
    },
    createAsset: async (input: CreateInput & { groupId: string; url: string; assetType: string; name: string }) => {
      await beforeCreate(deps, grants, input, 'assets');
      const r = await call('assets.CreateAsset', (signal) =>
        v(input.profile).assets.createAsset(
          { GroupId: input.groupId, URL: input.url, AssetType: input.assetType as 'Image', Name: input.name },
          { signal },
        ),
      );
      return { id: r.Id };
    },
    /**
     * Runs on the per-profile GetAsset task queue, which the server rate-limits. `status`
     * is the vendor's as is (e.g. `Processing`, still pending: ASSET_PENDING_STATES).
     */
    getAsset: async (input: ProfileInput & { id: string }) => {
      const a = await call('assets.GetAsset', (signal) =>
        v(input.profile).assets.getAsset({ Id: input.id }, { signal }),
      );
      return { id: a.Id, name: a.Name, status: a.Status, url: a.URL };
    },
  };
}

/** Generation (query shape assumed: docs/vendor-contract.md). */
function generationActivities(deps: ActivityDeps, spacing: QuerySpacing, grants: GrantReader) {
  const v = (profile: string) => deps.vendorFor(profile);
  return {
    generationCreate: async (input: CreateInput & { request: Record<string, unknown>; callback?: CallbackRef }) => {
      await beforeCreate(deps, grants, input, 'generation');
      const url = callbackUrl(deps, input.callback);
      const r = await call('generation.create', (signal) =>
        v(input.profile).generation.create(
          { ...(input.request as object), ...(url ? { callback_url: url } : {}) } as never,
          { signal },
        ),
      );
      return { id: r.id, callbackUsed: Boolean(url) };
    },
    /** Any dialect, one shape (times in unix seconds); `status` may be a state reelflow does not know. */
    generationGet: async (input: ProfileInput & { id: string }) => {
      const t = await query(spacing, 'generation.get', input.id, MIN_QUERY_INTERVAL_MS.generation, (signal) =>
        v(input.profile).generation.get(input.id, { signal }),
      );
      return {
        id: t.id,
        status: t.status,
        videoUrl: t.video_url,
        lastFrameUrl: t.last_frame_url,
        failReason: t.fail_reason && redactCallbackTokens(t.fail_reason),
        errorCode: t.error_code,
        model: t.model,
        createdAt: t.created_at,
        updatedAt: t.updated_at,
        finishedAt: t.finished_at,
      };
    },
  };
}

/** Subtitle erase. */
function eraseActivities(deps: ActivityDeps, spacing: QuerySpacing, grants: GrantReader) {
  const v = (profile: string) => deps.vendorFor(profile);
  return {
    eraseCreate: async (input: CreateInput & { videoUrl: string; callback?: CallbackRef }) => {
      await beforeCreate(deps, grants, input, 'erase');
      const url = callbackUrl(deps, input.callback);
      const r = await call('erase.create', (signal) =>
        v(input.profile).erase.create({ video_url: input.videoUrl, ...(url ? { callback_url: url } : {}) }, { signal }),
      );
      return { taskId: r.task_id, requestId: r.request_id, callbackUsed: Boolean(url) };
    },
    /** `status` is the vendor's as is (possibly NOT_START, UNKNOWN, or another unknown state). */
    eraseGet: async (input: ProfileInput & { taskId: string }) => {
      const t = await query(spacing, 'erase.get', input.taskId, MIN_QUERY_INTERVAL_MS.erase, (signal) =>
        v(input.profile).erase.get(input.taskId, { signal }),
      );
      return {
        taskId: t.task_id,
        status: t.status,
        videoUrl: t.video_url,
        failReason: t.fail_reason && redactCallbackTokens(t.fail_reason),
      };
    },
  };
}

/**
 * Every vendor activity; its key is the activity type the workflows schedule. `spacing` holds
 * task queries apart (GetAsset is paced per profile by its own queue instead); `grants` reads
 * the plan grants creates wait on, one ledger query for all of them.
 */
export function createVendorActivities(deps: ActivityDeps, spacing = new QuerySpacing(), grants = new GrantReader()) {
  return {
    ...reviewActivities(deps, spacing, grants),
    ...assetActivities(deps, grants),
    ...generationActivities(deps, spacing, grants),
    ...eraseActivities(deps, spacing, grants),
  };
}
