/**
 * What the benchmark runs (pure): the stage mix, the emulator's fixed processing times,
 * one pipeline definition per index (the index is written into every vendor task so the
 * emulator's records can be attributed to their pipeline), the ideal time and the
 * minimum number of vendor calls.
 */
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { GETASSET_MAX_PER_SECOND } from '../../src/vendor-api/documented-values';

export type BenchStage = 'review' | 'assets' | 'generation' | 'erase';
export const BENCH_STAGES: readonly BenchStage[] = ['review', 'assets', 'generation', 'erase'];

/** The emulator Timings fields the bench fixes (all single values: no ranges, no randomness). */
export interface StageTimings {
  reviewPendingMs: number;
  reviewProcessingMs: number;
  assetProcessingMs: number;
  generationQueuedMs: number;
  generationRunningMs: number;
  eraseSubmittedMs: number;
  eraseQueuedMs: number;
  eraseInProgressMs: number;
  /** Emulator scheduler tick: a state change (and its callback) happens up to this late. */
  tickMs: number;
}

/** The emulator's "fast" profile, written out so the report says exactly what ran. */
export const DEFAULT_STAGE_TIMINGS: StageTimings = {
  reviewPendingMs: 500,
  reviewProcessingMs: 1_500,
  assetProcessingMs: 2_000,
  generationQueuedMs: 1_000,
  generationRunningMs: 3_000,
  eraseSubmittedMs: 300,
  eraseQueuedMs: 700,
  eraseInProgressMs: 2_000,
  tickMs: 50,
};

export interface Workload {
  stages: BenchStage[];
  /** Asset items per pipeline (assets stage only); they are created and polled in parallel. */
  assetsPerPipeline: number;
  /** Download the generated and the erased video (sha256) as a user's pipeline would. */
  archive: boolean;
  timings: StageTimings;
  /** Assets created in the bench group before the run (setup, not timed): a long-lived shared group. */
  fillGroup?: number;
}

export const DEFAULT_WORKLOAD: Workload = {
  stages: ['review', 'assets', 'generation', 'erase'],
  assetsPerPipeline: 1,
  archive: true,
  timings: DEFAULT_STAGE_TIMINGS,
};

/** Problems with a workload, as messages naming the flag; empty when valid. */
export function workloadProblems(w: Workload): string[] {
  const problems: string[] = [];
  if (w.stages.length === 0) problems.push('--stages: at least one stage');
  if (w.stages.includes('erase') && !w.stages.includes('generation')) problems.push('--stages: erase needs generation');
  if (!w.stages.some((s) => s !== 'erase')) problems.push('--stages: needs review, assets or generation');
  if (!Number.isInteger(w.assetsPerPipeline) || w.assetsPerPipeline < 1 || w.assetsPerPipeline > 20) {
    problems.push('--assets: 1..20 items per pipeline');
  }
  for (const [k, v] of Object.entries(w.timings)) {
    if (!Number.isInteger(v) || v < 0) problems.push(`timings.${k}: a whole number of ms ≥ 0`);
  }
  if (w.timings.tickMs < 1) problems.push('timings.tickMs: at least 1');
  return problems;
}

/** Marks that tie a vendor record to its pipeline: /p<index>/ in URLs, "pipeline <index>" in the prompt. */
export const URL_INDEX = /\/p(\d+)\//;
export const PROMPT_INDEX = /\bpipeline (\d+)\b/;

export function mediaUrl(tag: string, index: number, file: string): string {
  return `https://media.example.com/bench/${tag}/p${index}/${file}`;
}

export const assetItemName = (j: number) => `ref${j}`;

/**
 * The definition of pipeline `index`. Review: one image (its Asset:// address becomes
 * the first frame). Assets: `assetsPerPipeline` images by URL in the given group (each
 * a reference image). Generation: a prompt naming the pipeline. Erase of the result.
 */
export function pipelineDefinition(
  w: Workload,
  opts: { tag: string; index: number; callbacks: boolean; groupId?: string },
): PipelineDefinitionInput {
  const { tag, index } = opts;
  const has = (s: BenchStage) => w.stages.includes(s);
  const def: PipelineDefinitionInput = {
    name: `bench-p${index}`,
    erase: has('erase'),
    // Against the local emulator: opt in to local media hosts.
    options: { callbacks: opts.callbacks, archive: w.archive, allowPrivateHosts: true },
  };
  if (has('review')) def.review = { media: [mediaUrl(tag, index, 'frame.png')] };
  if (has('assets')) {
    if (!opts.groupId) throw new Error('pipelineDefinition: the assets stage needs a groupId');
    def.assets = {
      group: { id: opts.groupId },
      // A user tunes the first read to their vendor's processing time; the emulator's is fixed.
      firstReadAfter: w.timings.assetProcessingMs,
      items: Array.from({ length: w.assetsPerPipeline }, (_, j) => ({
        name: assetItemName(j),
        url: mediaUrl(tag, index, `asset-${j}.png`),
        type: 'Image' as const,
      })),
    };
  }
  if (has('generation')) {
    const content: NonNullable<PipelineDefinitionInput['generation']>['content'] = [
      { type: 'text', text: `bench ${tag} pipeline ${index}: a product turning on a table` },
    ];
    if (has('review')) content.push({ type: 'image_url', image_url: { url: 'ref:review/0' }, role: 'first_frame' });
    if (has('assets')) {
      for (let j = 0; j < w.assetsPerPipeline; j++) {
        content.push({
          type: 'image_url',
          image_url: { url: `ref:asset/${assetItemName(j)}` },
          role: 'reference_image',
        });
      }
    }
    def.generation = { model: 'video-model-1', content, ratio: '16:9', duration: 5 };
  }
  return def;
}

/** Per-stage vendor processing time along one pipeline's chain (ms). */
export function stageProcessingMs(w: Workload): Partial<Record<BenchStage, number>> {
  const t = w.timings;
  const out: Partial<Record<BenchStage, number>> = {};
  if (w.stages.includes('review')) out.review = t.reviewPendingMs + t.reviewProcessingMs;
  // Items of one assets stage are processed in parallel: the chain holds one of them.
  if (w.stages.includes('assets')) out.assets = t.assetProcessingMs;
  if (w.stages.includes('generation')) out.generation = t.generationQueuedMs + t.generationRunningMs;
  if (w.stages.includes('erase')) out.erase = t.eraseSubmittedMs + t.eraseQueuedMs + t.eraseInProgressMs;
  return out;
}

/**
 * The ideal wall time: the emulator's own processing along the longest chain. All
 * pipelines run at once and the emulator processes tasks in parallel, so the longest
 * chain is one pipeline's: the sum of its stages' processing times. Not counted: HTTP
 * round trips, polling and callback delays, the scheduler tick, archive downloads.
 */
export function idealMs(w: Workload): number {
  return Object.values(stageProcessingMs(w)).reduce((a, b) => a + (b ?? 0), 0);
}

/**
 * The vendor's own floor on a run's wall time: every pipeline's final GetAsset can only
 * come after its asset is processed, and the vendor answers at most 10 per second per
 * access token; the last one is then that much later than a lone pipeline's.
 */
export function getAssetVendorFloorMs(pipelines: number, w: Workload): number {
  return w.stages.includes('assets') ? (pipelines * w.assetsPerPipeline * 1000) / GETASSET_MAX_PER_SECOND : 0;
}

/**
 * The fewest vendor calls one pipeline can make, by emulator endpoint key: per vendor
 * task one create and one query that reads the terminal state (a result is only taken
 * from a query: callbacks are hints, and assets have none), plus one download per
 * archived video.
 */
export function minimumCalls(w: Workload): Record<string, number> {
  const has = (s: BenchStage) => w.stages.includes(s);
  const out: Record<string, number> = {};
  if (has('review')) Object.assign(out, { 'review.async': 1, 'review.get': 1 });
  if (has('assets'))
    Object.assign(out, { 'assets.CreateAsset': w.assetsPerPipeline, 'assets.GetAsset': w.assetsPerPipeline });
  if (has('generation')) Object.assign(out, { 'generation.create': 1, 'generation.get': 1 });
  if (has('erase')) Object.assign(out, { 'erase.create': 1, 'erase.get': 1 });
  const downloads = (w.archive && has('generation') ? 1 : 0) + (w.archive && has('erase') ? 1 : 0);
  if (downloads) out['media.get'] = downloads;
  return out;
}

/** The emulator's --timings file content: the fixed stage times (no ranges). */
export function emulatorTimings(w: Workload): Record<string, number> {
  return { ...w.timings };
}
