/**
 * Rerun (`input.reuse`): the finished outputs of an earlier pipeline seed this one's result,
 * so their stages are skipped exactly as after a continue-as-new and make no vendor call.
 * They are read from the source run itself (reuse-by-run.ts), never from the input, and the
 * tasks it left running are adopted. Checked first, in workflow time: the generated video URL a later step
 * needs (else ReusedOutputExpired, naming it), and the assets' ~12 h signed URLs, fetched
 * again by GetAsset as the spec allows (an asset no longer Active is refused).
 */
import type { PipelineDefinition } from '../../../definition/definition';
import { FailureType } from '../../../failures';
import {
  STAGES,
  type AssetResult,
  type AssetsStageResult,
  type PipelineReuse,
  type PipelineResult,
  type VendorTaskRecord,
} from '../../../contract/messages';
import { assetUrlStale, expiredReuse } from '../../../contract/expiry';
import { isFatalQueryFailure, messageOf, stageFailure } from '../failures';
import type { PipelineRuntime } from '../pipeline-runtime';
import { QUERY_OPTIONS, getAssetActivity } from '../proxies';
import { fromSourceRun } from './reuse-by-run';
import { summaryOf } from '../status/summaries';

/** Seeds the result with the reused outputs of stages this definition runs, shown as done; then checks them. */
export async function reuseOutputs(
  rt: PipelineRuntime,
  def: PipelineDefinition,
  input: PipelineReuse,
  result: PipelineResult,
): Promise<void> {
  const { outputs: reuse, adopt } = await fromSourceRun(rt, input);
  const from = reuse.fromPipelineId;
  const stages = STAGES.filter((s) => reuse[s] !== undefined && rt.board.status.stages[s].state !== 'skipped');
  if (stages.includes('review')) result.review = reuse.review;
  if (stages.includes('assets')) result.assets = reuse.assets;
  if (stages.includes('generation')) result.generation = reuse.generation;
  if (stages.includes('erase')) result.erase = reuse.erase;
  result.reused = { fromPipelineId: from, fromRunId: input.fromRunId, stages };
  for (const s of stages) Object.assign(rt.board.status.stages[s], { state: 'done', reusedFrom: from });
  rt.board.status.stage = STAGES.find((s) => rt.board.status.stages[s].state === 'pending') ?? 'archive';
  rt.board.refresh();
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
 * recorded as this run's, so their create step polls them and never creates (create/create.ts).
 * Recorded now, so the vendor-task deadline counts from this run's start.
 */
function adoptSourceTasks(rt: PipelineRuntime, tasks: VendorTaskRecord[]): void {
  for (const { kind, id, step, attempt, state } of tasks) {
    rt.creates.record({ kind, id, step, attempt, via: 'existing', ...(state !== undefined ? { state } : {}) });
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
  const getAsset = getAssetActivity(profile, rt.board.taskOptions);
  const refresh = async (a: AssetResult): Promise<AssetResult> => {
    if (!assetUrlStale(a, Date.now())) return a;
    const refused = (why: string) =>
      stageFailure(
        `reused assets.items[${a.name}].signedUrl of ${from} expired and cannot be refreshed: ${why}; rerun from assets`,
        FailureType.ReusedOutputExpired,
        { output: `assets.items[${a.name}].signedUrl`, assetId: a.assetId, fromPipelineId: from },
      );
    rt.board.count('assets.GetAsset');
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
