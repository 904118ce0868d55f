/**
 * Rerun (`input.reuse`): the finished outputs of an earlier pipeline seed this one's result,
 * so their stages are skipped exactly as after a continue-as-new and make no vendor call.
 * Runs on `reuse-by-run` read them from the source run itself (reuse-by-run.ts) and adopt
 * the tasks it left running; runs recorded before took them from the input, and only their
 * replay still does. Checked first, in workflow time: the generated video URL a later step
 * needs (else ReusedOutputExpired, naming it), and the assets' ~12 h signed URLs, fetched
 * again by GetAsset as the spec allows (an asset no longer Active is refused).
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { PipelineDefinition } from '../../definition/definition';
import { FailureType } from '../../failures';
import {
  STAGES,
  type AssetResult,
  type AssetsStageResult,
  type LegacyPipelineReuse,
  type PipelineInput,
  type PipelineResult,
  type PipelineReuse,
  type VendorTaskRecord,
} from '../../contract/messages';
import { stageFailure } from './create';
import { assetUrlStale, expiredReuse } from '../../contract/expiry';
import { isFatalQueryFailure, messageOf } from './failures';
import type { PipelineRuntime } from './pipeline-runtime';
import { QUERY_OPTIONS, getAssetActivity } from './proxies';
import { fromSourceRun } from './reuse-by-run';
import { summaryOf } from './summaries';

/** Seeds the result with the reused outputs of stages this definition runs, shown as done; then checks them. */
export async function reuseOutputs(
  rt: PipelineRuntime,
  def: PipelineDefinition,
  input: NonNullable<PipelineInput['reuse']>,
  result: PipelineResult,
  byRun: boolean,
): Promise<void> {
  let reuse: LegacyPipelineReuse;
  let adopt: VendorTaskRecord[] = [];
  if (byRun) {
    ({ outputs: reuse, adopt } = await fromSourceRun(rt, input as PipelineReuse));
  } else {
    reuse = input;
    const bad = reuseIssue(reuse);
    if (bad) throw ApplicationFailure.nonRetryable(`reuse.${bad}`, FailureType.InvalidDefinition);
  }
  const from = reuse.fromPipelineId;
  const stages = STAGES.filter((s) => reuse[s] !== undefined && rt.status.stages[s].state !== 'skipped');
  if (stages.includes('review')) result.review = reuse.review;
  if (stages.includes('assets')) result.assets = reuse.assets;
  if (stages.includes('generation')) result.generation = reuse.generation;
  if (stages.includes('erase')) result.erase = reuse.erase;
  const fromRunId = byRun ? { fromRunId: (input as PipelineReuse).fromRunId } : {};
  result.reused = { fromPipelineId: from, ...fromRunId, stages };
  for (const s of stages) Object.assign(rt.status.stages[s], { state: 'done', reusedFrom: from });
  rt.status.stage = STAGES.find((s) => rt.status.stages[s].state === 'pending') ?? 'archive';
  rt.refresh();
  const uses = { erase: def.erase && !result.erase, archive: def.options.archive };
  const expired = expiredReuse(result, uses, Date.now());
  if (expired) {
    throw stageFailure(
      `reused ${expired.output} of ${from} expired at ${expired.expiresAt} (${expired.why}); rerun from generation`,
      FailureType.ReusedOutputExpired,
      { ...expired, fromPipelineId: from },
    );
  }
  if (result.assets) result.assets = await refreshAssetUrls(rt, def.options.profile, result.assets, from);
  adoptSourceTasks(rt, adopt);
}

/**
 * The source's tasks that may still succeed, for steps redone here with the same inputs:
 * recorded as this run's, so their create step polls them and never creates (create.ts).
 * Recorded now, so the vendor-task deadline counts from this run's start.
 */
function adoptSourceTasks(rt: PipelineRuntime, tasks: VendorTaskRecord[]): void {
  for (const { kind, id, step, attempt, state } of tasks) {
    rt.record({ kind, id, step, attempt, via: 'existing', ...(state !== undefined ? { state } : {}) });
  }
}

/** Reused assets whose signed URL is (nearly) past its ~12 h get a fresh one from GetAsset. */
async function refreshAssetUrls(
  rt: PipelineRuntime,
  profile: string,
  assets: AssetsStageResult,
  from: string,
): Promise<AssetsStageResult> {
  if (!assets.items.some((a) => assetUrlStale(a, Date.now()))) return assets;
  const getAsset = getAssetActivity(profile, rt.taskOptions);
  const refresh = async (a: AssetResult): Promise<AssetResult> => {
    if (!assetUrlStale(a, Date.now())) return a;
    const refused = (why: string) =>
      stageFailure(
        `reused assets.items[${a.name}].signedUrl of ${from} expired and cannot be refreshed: ${why}; rerun from assets`,
        FailureType.ReusedOutputExpired,
        { output: `assets.items[${a.name}].signedUrl`, assetId: a.assetId, fromPipelineId: from },
      );
    rt.count('assets.GetAsset');
    const summary = summaryOf('assets', `GetAsset ${a.assetId} (refresh the reused signed URL)`);
    const got = await getAsset
      .executeWithOptions({ ...QUERY_OPTIONS, summary }, [{ profile, id: a.assetId }])
      .catch((err: unknown) => {
        throw isFatalQueryFailure(err) ? refused(messageOf(err)) : err;
      });
    if (got.status !== 'Active' || !got.url) throw refused(`asset ${a.assetId} is ${got.status} at the vendor`);
    return { ...a, status: got.status, signedUrl: got.url, signedUrlFetchedAt: new Date().toISOString() };
  };
  return { ...assets, items: await Promise.all(assets.items.map(refresh)) };
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** The first field of a legacy reuse (replayed runs only) that cannot be used, or undefined. */
function reuseIssue(reuse: LegacyPipelineReuse): string | undefined {
  const { review, assets, generation, erase } = reuse;
  if (!isText(reuse.fromPipelineId)) return "fromPipelineId: the earlier pipeline's id is required";
  if (review && !Array.isArray(review.items)) return 'review.items: an array of review item results';
  const badItem = review?.items.findIndex((i) => i.passed && !isText(i.assetUrl)) ?? -1;
  if (badItem >= 0) return `review.items[${badItem}].assetUrl: a passed item needs its Asset:// address`;
  if (assets && (!isText(assets.groupId) || !Array.isArray(assets.items))) {
    return 'assets: needs groupId and items';
  }
  const badAsset = assets?.items.findIndex((a) => !isText(a.name) || !isText(a.assetId) || !isText(a.assetUrl)) ?? -1;
  if (badAsset >= 0) return `assets.items[${badAsset}]: needs name, assetId and assetUrl`;
  if (generation && (!isText(generation.taskId) || !isText(generation.videoUrl))) {
    return 'generation: needs taskId and videoUrl';
  }
  if (generation && Number.isNaN(Date.parse(generation.videoUrlExpiresAt))) {
    return 'generation.videoUrlExpiresAt: an ISO time';
  }
  if (erase && (!isText(erase.taskId) || !isText(erase.videoUrl))) return 'erase: needs taskId and videoUrl';
  return undefined;
}
