/**
 * Assets stage: find or create the group by name, register each item under a
 * deterministic name that embeds its idempotency key (so reconcile is an exact name
 * match), then poll GetAsset on the server-rate-limited task queue until terminal.
 * An asset Pending for 5 minutes is shown as stuck ("contact support").
 */
import { ASSET_PENDING_STATES, ASSET_STATES, ASSET_TERMINAL_STATES } from '../../vendor-api/assumed-values';
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { PipelineDefinition } from '../../definition/definition';
import { inferMediaType } from '../../vendor-api/batching';
import type { AssetResult, AssetsStageResult, PipelineResult } from '../../contract/messages';
import { CREATE_OPTIONS, QUERY_OPTIONS, creates, getAssetActivity, runQuery } from '../lib/proxies';
import { createWithoutDuplicates, type CreateSpec } from '../create/create';
import { stageFailure } from '../lib/failures';
import { shortKey } from '../lib/hash';
import { DEFAULT_POLICIES, isOneOf } from '../../contract/poll-policy';
import { pollUntilDone, type PollSpec } from '../lib/poll/poll';
import type { PipelineRuntime } from '../lib/pipeline-runtime';
import type { StageCommon } from '../lib/stage-common';
import { FailureType } from '../../failures';
import { durationMs } from '../../definition/refs';
import type { StageContext, StageDefinition } from '../lib/stage-definition';

const LIST_PAGE_SIZE = 100;

/** What GetAsset answers (the activity's result). */
type VendorAsset = Awaited<ReturnType<ReturnType<typeof getAssetActivity>>>;

export interface AssetSource {
  name: string;
  url: string;
  type: 'Image' | 'Video' | 'Audio';
}

export interface AssetsStageInput extends StageCommon {
  group: { id: string } | { name: string; description?: string };
  items: AssetSource[];
  /** Fail when an asset stays Pending this long. */
  pendingDeadlineMs: number;
  /** Show the stage as stuck when an asset stays Pending this long (spec: 5 min). */
  stuckAfterMs: number;
  /**
   * The wait between a create and its first GetAsset (assets.firstReadAfter, default 5 s, the
   * vendor's "usually 5 to 30 s"): it starts Pending, and every GetAsset spends the profile's shared 9/s.
   */
  firstReadAfterMs: number;
}

/** Registers the definition's assets (reviewed media among them); nothing to archive. */
export const ASSETS: StageDefinition<AssetsStageInput, AssetsStageResult> = {
  name: 'assets',
  enabled: (def) => def.assets !== undefined,
  input: assetsInput,
  run: assetsStage,
};

function assetsInput({ def, result, common }: StageContext): AssetsStageInput {
  const assets = def.assets!;
  const deadlines = def.options.deadlines;
  return {
    ...common,
    group: assets.group,
    items: assetSources(assets, result),
    pendingDeadlineMs: durationMs(deadlines.assetPending),
    stuckAfterMs: durationMs(deadlines.assetStuck),
    firstReadAfterMs: durationMs(assets.firstReadAfter),
  };
}

/** The definition's items, with `fromReview` replaced by the reviewed media (it must have passed). */
export function assetSources(assets: NonNullable<PipelineDefinition['assets']>, result: PipelineResult): AssetSource[] {
  return assets.items.map((item, i): AssetSource => {
    if ('url' in item) return { name: item.name, url: item.url, type: item.type };
    const reviewed = result.review?.items[item.fromReview];
    if (!reviewed?.passed) {
      throw ApplicationFailure.nonRetryable(
        `assets.items[${i}].fromReview: review item ${item.fromReview} did not pass review`,
        FailureType.InvalidReference,
      );
    }
    const t = inferMediaType(reviewed.sourceUrl);
    return { name: item.name, url: reviewed.downstreamFinalUrl ?? reviewed.sourceUrl, type: t.ok ? t.type : 'Image' };
  });
}

/**
 * The vendor-side name: the user's name plus a key derived from the pipeline's first run id
 * and the item. A fresh run's names cannot exist yet, so it creates without listing the group;
 * a listing is a search for one name after an ambiguous create (docs/architecture.md,
 * "Create without duplicates").
 */
export function vendorAssetName(firstRunId: string, name: string): string {
  return `${name}-rf${shortKey(`${firstRunId}/${name}`)}`;
}

/** Asset://<id> is how a created asset is referenced in generation content. */
export function assetAddress(id: string): string {
  return `Asset://${id}`;
}

/** The group, then every item registered and polled to Active (in parallel). */
export async function assetsStage(rt: PipelineRuntime, input: AssetsStageInput): Promise<AssetsStageResult> {
  const group = await resolveGroup(rt, input);
  rt.board.detail = `group ${group.id}`;
  rt.board.progress = { done: 0, total: input.items.length };
  rt.board.refresh();
  const ctx: ItemContext = {
    rt,
    input,
    groupId: group.id,
    getAsset: getAssetActivity(input.profile, rt.board.taskOptions),
  };
  const items = await Promise.all(input.items.map((item) => assetItem(ctx, item)));
  rt.board.stuck = false;
  return { groupId: group.id, groupName: group.name, groupCreated: group.created, items };
}

/** What every item of the stage shares. */
interface ItemContext {
  rt: PipelineRuntime;
  input: AssetsStageInput;
  groupId: string;
  getAsset: ReturnType<typeof getAssetActivity>;
}

/** One page of the group's assets (a local activity, counted as a ListAssets call). */
function listPage(rt: PipelineRuntime, profile: string, groupId: string, page: number) {
  rt.board.count('assets.ListAssets');
  return runQuery(rt, 'listAssetsPage', rt.board.summary(`list assets of group ${groupId} (page ${page})`), [
    { profile, groupId, pageNumber: page, pageSize: LIST_PAGE_SIZE },
  ]);
}

/**
 * One asset by name, for a reconcile: the first page, then the last, then the rest from the
 * end. The vendor does not document its listing order (docs/vendor-contract.md); by creation,
 * either way, a just-created asset is on the first or the last page. Any other order still
 * finds it, reading every page at worst.
 */
async function searchAsset(rt: PipelineRuntime, profile: string, groupId: string, name: string) {
  const first = await listPage(rt, profile, groupId, 1);
  let hit = first.assets.find((a) => a.name === name);
  // By what came back: the vendor's page size cap is not documented.
  const pages = Math.ceil(first.total / Math.max(1, first.assets.length));
  for (let page = pages; !hit && page > 1; page--) {
    hit = (await listPage(rt, profile, groupId, page)).assets.find((a) => a.name === name);
  }
  return hit;
}

/**
 * One item: found by name or created without duplicates, then polled until it is Active.
 * Its awaits stay in this one function: items run in parallel, and their commands keep
 * the order recorded histories have (see createWithoutDuplicates).
 */
async function assetItem(ctx: ItemContext, item: AssetSource): Promise<AssetResult> {
  const { rt, input } = ctx;
  const vendorName = vendorAssetName(workflowInfo().firstExecutionRunId, item.name);
  const step = `asset-${item.name}`;
  const assetId = (await createWithoutDuplicates(createAssetSpec(ctx, item, vendorName, step))).value.id;
  // The wait never hides the stage's own deadlines (stuck, Pending too long).
  const firstWaitMs = Math.min(input.firstReadAfterMs, input.stuckAfterMs, input.pendingDeadlineMs);
  const asset = await pollUntilDone({ ...pollAssetSpec(ctx, item, assetId, step), firstWaitMs });
  if (asset.status !== 'Active') {
    throw stageFailure(`asset ${item.name} (${assetId}) ended ${asset.status}`, FailureType.AssetFailed);
  }
  rt.board.progress = { done: (rt.board.progress?.done ?? 0) + 1, total: input.items.length };
  rt.board.refresh();
  return {
    name: item.name,
    vendorName,
    assetId,
    assetUrl: assetAddress(assetId),
    status: asset.status,
    signedUrl: asset.url,
    signedUrlFetchedAt: new Date().toISOString(),
  };
}

/** CreateAsset under the deterministic name; reconcile is an exact name match in a fresh listing. */
function createAssetSpec(
  ctx: ItemContext,
  item: AssetSource,
  vendorName: string,
  step: string,
): CreateSpec<{ id: string }> {
  const { rt, input, groupId } = ctx;
  const { profile } = input;
  return {
    rt,
    step,
    kind: 'asset',
    label: `create asset ${item.name}`,
    action: `create asset ${item.name}`,
    endpoint: 'assets.CreateAsset',
    policy: 'resubmit', // reconcile by name is exact: nothing found means nothing created
    create: (n, grant) =>
      creates.createAsset.executeWithOptions(
        {
          ...CREATE_OPTIONS,
          ...rt.board.taskOptions,
          startToCloseTimeout: input.createAttemptMs,
          summary: rt.board.summary(`create asset ${vendorName} (attempt ${n})`),
        },
        [{ profile, groupId, url: item.url, assetType: item.type, name: vendorName, ...(grant && { grant }) }],
      ),
    taskIdOf: (v) => v.id,
    reconcile: async () => {
      const hit = await searchAsset(rt, profile, groupId, vendorName);
      return hit ? { id: hit.id } : undefined;
    },
    fromTaskId: (id) => ({ id }),
  };
}

/** GetAsset until a terminal state; an asset Pending past the threshold shows the stage as stuck. */
function pollAssetSpec(ctx: ItemContext, item: AssetSource, assetId: string, step: string): PollSpec<VendorAsset> {
  const { rt, input } = ctx;
  return {
    rt,
    step,
    label: `asset ${item.name} (${assetId})`,
    subject: `asset ${item.name} (${assetId})`,
    endpoint: 'assets.GetAsset',
    policy: DEFAULT_POLICIES.asset,
    callbacks: false,
    deadlineMs: input.pendingDeadlineMs,
    query: () =>
      ctx.getAsset.executeWithOptions({ ...QUERY_OPTIONS, summary: rt.board.summary(`GetAsset ${assetId}`) }, [
        { profile: input.profile, id: assetId },
      ]),
    done: (a) => isOneOf(a.status, ASSET_TERMINAL_STATES),
    states: { of: (a) => a.status, known: [...ASSET_STATES, ...ASSET_PENDING_STATES] },
    notFoundGraceMs: input.notFoundGraceMs,
    onValue: (a) => rt.board.setState('asset', assetId, a.status),
    stuck: {
      afterMs: input.stuckAfterMs,
      onStuck: () => {
        rt.board.stuck = true;
        rt.board.detail = `asset ${item.name} (${assetId}) still Pending after ${Math.round(input.stuckAfterMs / 1000)} s: contact vendor technical support`;
        rt.board.refresh();
      },
    },
  };
}

async function resolveGroup(rt: PipelineRuntime, input: AssetsStageInput) {
  const { profile } = input;
  if ('id' in input.group) {
    rt.board.count('assets.GetAssetGroup');
    const g = await runQuery(rt, 'getAssetGroup', rt.board.summary(`GetAssetGroup ${input.group.id}`), [
      { profile, id: input.group.id },
    ]);
    return { id: g.id, name: g.name, created: false };
  }
  const { name, description } = input.group;
  const findByName = async () => {
    rt.board.count('assets.ListAssetGroups');
    const groups = await runQuery(rt, 'listAssetGroups', rt.board.summary(`find group "${name}"`), [{ profile }]);
    return groups.find((g) => g.name === name);
  };
  const found = await findByName();
  if (found) {
    rt.creates.record({ kind: 'assetGroup', id: found.id, step: 'group', attempt: 0, via: 'existing' });
    return { id: found.id, name, created: false };
  }
  const created = await createWithoutDuplicates({
    rt,
    step: 'group',
    kind: 'assetGroup',
    label: `create asset group "${name}"`,
    action: 'create group',
    endpoint: 'assets.CreateAssetGroup',
    policy: 'resubmit',
    create: (n, grant) =>
      creates.createAssetGroup.executeWithOptions(
        {
          ...CREATE_OPTIONS,
          ...rt.board.taskOptions,
          startToCloseTimeout: input.createAttemptMs,
          summary: rt.board.summary(`create group "${name}" (attempt ${n})`),
        },
        [{ profile, name, description, ...(grant && { grant }) }],
      ),
    taskIdOf: (v) => v.id,
    reconcile: async () => {
      const g = await findByName();
      return g ? { id: g.id } : undefined;
    },
    fromTaskId: (id) => ({ id }),
  });
  return { id: created.value.id, name, created: created.via === 'create' };
}
