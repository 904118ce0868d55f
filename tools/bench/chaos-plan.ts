/**
 * What a chaos run starts, pure and deterministic: the pipelines (every stage; every
 * name, URL and prompt carries the pipeline's tag so each vendor record can be traced
 * back to it; one of them reuses the workflow id of an earlier one), the credential
 * profiles they use, the fault mix, and the seeded schedule of kills, the server restart
 * and the moves against the tenants' ledgers (docs/benchmarks.md, "Chaos run (`npm run chaos`)").
 */
import type { FaultConfig } from '../../src/emulator/faults';
import { mulberry32 } from '../../src/emulator/prng';
import type { PipelineDefinitionInput } from '../../src/definition/definition';

/** Seeded PRNG (the emulator's mulberry32). The controller never calls Math.random. */
export const seededRandom = mulberry32;

/** Every vendor user (access token) holds at most 100 groups, 2 of them system groups. */
export const PIPELINES_PER_PROFILE = 80;
/** One in this many pipelines is built to fail: its prompt makes the vendor fail the generation. */
export const FAIL_EVERY = 20;
export const FAIL_MARK = 'fail-generation';

/** The tenants the pipelines are dealt among, round-robin by index (chaos-gate.ts). */
export const CHAOS_TENANTS = 3;

export const CHAOS_API_KEY = 'chaos-api-key';
export const accessTokenOf = (profileIndex: number): string => `chaos-user-${profileIndex}`;
export const profileName = (profileIndex: number): string => `c${profileIndex}`;
export function profileCount(pipelines: number): number {
  return Math.max(1, Math.ceil(pipelines / PIPELINES_PER_PROFILE));
}

/** "p007": the tag that ties vendor records to pipeline 7. */
export function pipelineTag(index: number): string {
  return `p${String(index).padStart(3, '0')}`;
}

export interface PlannedPipeline {
  index: number;
  tag: string;
  workflowId: string;
  profile: string;
  /** Owner label the emulator shows for this profile's access token (user#N, 1-based). */
  owner: string;
  groupName: string;
  /** Review batches as planned: each batch's URLs. */
  reviewBatches: string[][];
  /** Names (as in the definition) of the assets created with CreateAsset. */
  assetNames: string[];
  expect: { state: 'completed' } | { state: 'failed'; stage: 'generation'; reason: string };
  definition: PipelineDefinitionInput;
  /**
   * The tag of the pipeline whose workflow id this one takes, started once that one has
   * ended: a new run chain under a used id, a new pipeline to its tenant's ledger.
   */
  reuses?: string;
}

export interface PlanOptions {
  pipelines: number;
  /** Prefix of workflow ids, unique per run (the quick test shares a server). */
  runTag: string;
  /**
   * Policy for ambiguous review/generation/erase creates that reconcile could not
   * settle. Default `ask` (the operator answers). `resubmit` shows what that policy
   * costs under these faults: a create whose callback is also lost is sent twice.
   */
  ambiguousPolicy?: 'ask' | 'resubmit';
}

export function planPipelines(opts: PlanOptions): PlannedPipeline[] {
  const profiles = profileCount(opts.pipelines);
  const policy = opts.ambiguousPolicy ?? 'ask';
  const plan = Array.from({ length: opts.pipelines }, (_, index): PlannedPipeline => {
    const tag = pipelineTag(index);
    const p = index % profiles;
    const media = `https://media.example.com/chaos/${tag}`;
    const review = [`${media}/front.png`, `${media}/side.jpg`];
    const failing = index % FAIL_EVERY === FAIL_EVERY - 1;
    const prompt = `[chaos ${tag}] a product turning on a table${failing ? ` ${FAIL_MARK}` : ''}`;
    const definition: PipelineDefinitionInput = {
      name: `chaos-${tag}`,
      review: { media: review },
      assets: {
        group: { name: `chaos-${tag}` },
        items: [
          { name: 'hero', fromReview: 0 },
          { name: 'bgm', url: `${media}/theme.mp3`, type: 'Audio' },
        ],
      },
      generation: {
        model: 'video-model-1',
        content: [
          { type: 'text', text: prompt },
          { type: 'image_url', image_url: { url: 'ref:review/0' }, role: 'first_frame' },
          { type: 'audio_url', audio_url: { url: 'ref:asset/bgm' }, role: 'reference_audio' },
        ],
        ratio: '16:9',
        duration: 5,
      },
      erase: true,
      options: {
        profile: profileName(p),
        callbacks: true,
        // Every create reconciled by callback asks an operator when reconcile finds nothing:
        // with `resubmit`, an ambiguous submit whose callback is also lost would be sent
        // twice (the documented trade-off of `resubmit`; --ambiguous-policy resubmit shows it).
        ambiguousCreate: { review: policy, generation: policy, erase: policy },
        deadlines: { callbackGrace: '15s', createAttempt: '20s' },
        archive: true,
        allowPrivateHosts: true, // against the local emulator
      },
    };
    return {
      index,
      tag,
      workflowId: `${opts.runTag}-${tag}`,
      profile: profileName(p),
      owner: `user#${p + 1}`,
      groupName: `chaos-${tag}`,
      reviewBatches: [review],
      assetNames: ['hero', 'bgm'],
      expect: failing
        ? {
            state: 'failed',
            stage: 'generation',
            reason: `the prompt carries "${FAIL_MARK}": the vendor fails the generation task`,
          }
        : { state: 'completed' },
      definition,
    };
  });
  planReuse(plan);
  return plan;
}

/**
 * The last pipeline not built to fail takes the workflow id of the first pipeline of its
 * tenant (an early one, also built to complete): it starts once that one has ended. Needs
 * a pipeline of each tenant before it, so at least CHAOS_TENANTS + 1 pipelines.
 */
export function planReuse(plan: PlannedPipeline[]): void {
  const tenants = Math.min(CHAOS_TENANTS, plan.length);
  const reuser = [...plan].reverse().find((p) => p.expect.state === 'completed' && p.index >= tenants);
  if (!reuser) return;
  const original = plan[reuser.index % tenants];
  reuser.workflowId = original.workflowId;
  reuser.reuses = original.tag;
}

/** The tag of the pipeline a URL, prompt or name belongs to. */
export function tagIn(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const m = /(?:chaos\/|\[chaos |chaos-)(p\d{3,})\b/.exec(text);
  return m?.[1];
}

/**
 * The vendor client gives up on an answer after this long (VENDOR_HEADERS_TIMEOUT_MS);
 * a delayAfterCreate holds the answer longer, so the create becomes ambiguous.
 */
export const CLIENT_HEADERS_TIMEOUT_MS = 5_000;
export const DELAY_AFTER_CREATE_MS = 8_000;

/**
 * The fault mix: moderate probabilities on every endpoint the pipelines use, so most
 * pipelines meet at least one. Ambiguous creates (reset/500/held answer after the task
 * exists), resets before the task exists, 502 UpstreamCallFailed on asset management,
 * 429 on GetAsset and on the create endpoints, dropped/delayed/duplicated callbacks,
 * and resets on queries and downloads. Not included: erase 502 ("video processing
 * failed"), which fails a pipeline by design (tested in test/workflows/faults.e2e).
 *
 * 429 BURSTS: GetAsset, generation create and CreateAsset each answer a run of
 * consecutive 429s once, after a seeded number of calls (the emulator's `skip`+`next`),
 * on top of their scattered 429s. Static in the config on purpose: replacing the config
 * mid-run would restart every seeded stream and replay its first draws.
 */
export function chaosFaults(opts: { seed: number; pipelines: number } = { seed: 1, pipelines: 200 }): FaultConfig {
  const rnd = seededRandom(opts.seed ^ 0xb0057);
  /**
   * Skip a seeded 10–30 % of the calls an endpoint is expected to see (no fault of that
   * kind fires meanwhile), then `size` 429s in a row, then the scattered ones.
   */
  const burst = (expectedCalls: number, min: number, spread: number) => ({
    skip: Math.floor(expectedCalls * (0.1 + 0.2 * rnd())),
    next: min + Math.floor(rnd() * spread),
  });
  const ambiguous = {
    resetBeforeCreate: { probability: 0.04 },
    resetAfterCreate: { probability: 0.04 },
    error500AfterCreate: { probability: 0.05 },
    delayAfterCreate: { probability: 0.04, ms: DELAY_AFTER_CREATE_MS },
  };
  return {
    'review.async': { ...ambiguous },
    'review.get': { resetBeforeCreate: { probability: 0.03 } },
    'assets.CreateAssetGroup': {
      upstream502: { probability: 0.08 },
      resetAfterCreate: { probability: 0.06 },
      error500AfterCreate: { probability: 0.04 },
    },
    'assets.ListAssets': { upstream502: { probability: 0.04 } },
    'assets.CreateAsset': {
      rateLimit429: { probability: 0.06, retryAfterSeconds: 1, ...burst(opts.pipelines * 2, 3, 3) },
      upstream502: { probability: 0.06 },
      resetAfterCreate: { probability: 0.05 },
      error500AfterCreate: { probability: 0.04 },
      delayAfterCreate: { probability: 0.03, ms: DELAY_AFTER_CREATE_MS },
    },
    'assets.GetAsset': {
      rateLimit429: { probability: 0.08, retryAfterSeconds: 1, ...burst(opts.pipelines * 2, 6, 5) },
      upstream502: { probability: 0.03 },
    },
    'generation.create': {
      ...ambiguous,
      rateLimit429: { probability: 0.06, retryAfterSeconds: 1, ...burst(opts.pipelines, 3, 3) },
    },
    'generation.get': { resetBeforeCreate: { probability: 0.03 } },
    'erase.create': { ...ambiguous },
    'erase.get': { resetBeforeCreate: { probability: 0.03 } },
    'media.get': { resetBeforeCreate: { probability: 0.04 } },
    'generation.callback': {
      callbackDrop: { probability: 0.15 },
      callbackDelay: { probability: 0.1, ms: 3_000 },
      callbackDuplicate: { probability: 0.1 },
    },
    'erase.callback': {
      callbackDrop: { probability: 0.15 },
      callbackDelay: { probability: 0.1, ms: 3_000 },
      callbackDuplicate: { probability: 0.1 },
    },
    'review.callback': {
      callbackDrop: { probability: 0.15 },
      callbackDelay: { probability: 0.1, ms: 3_000 },
      callbackDuplicate: { probability: 0.1 },
    },
  };
}

/** The 429 bursts a fault config holds: endpoint → consecutive 429s after that many calls. */
export function burstsOf(config: FaultConfig): Record<string, { after: number; size: number }> {
  const out: Record<string, { after: number; size: number }> = {};
  for (const [key, kinds] of Object.entries(config)) {
    const r = kinds.rateLimit429;
    if (r?.next) out[key] = { after: r.skip ?? 0, size: r.next };
  }
  return out;
}

export interface ChaosSchedule {
  /** When each pipeline starts (ms after the run's start): a quarter at once, the rest spread. */
  startAtMs: number[];
  /** Milliseconds after the run's start. */
  kills: { atMs: number; workerPick: number }[];
  restartAtMs?: number;
  /**
   * From when (ms after the run's start) one tenant's current ledger is terminated, and
   * forged messages are sent to another's: each as soon as its ledger has what it needs.
   */
  ledger: { terminateAtMs: number; forgeAtMs: number };
}

/** Share of the pipelines started at once; the others arrive over ARRIVAL_SHARE of the run. */
export const INITIAL_BURST_SHARE = 0.25;
export const ARRIVAL_SHARE = 0.4;

/** Rough length of a run, to spread the kills and the restart over it. */
export function estimatedRunMs(pipelines: number): number {
  return 30_000 + pipelines * 1_500;
}

export function planSchedule(opts: {
  seed: number;
  pipelines: number;
  kills: number;
  restartServer: boolean;
}): ChaosSchedule {
  const rnd = seededRandom(opts.seed ^ 0x5eed);
  const span = estimatedRunMs(opts.pipelines);
  // Arrivals spread over time put pipelines in every stage at once, so a kill or the
  // restart meets creates, polls and archives of every kind, not one stage in lockstep.
  const burst = Math.ceil(opts.pipelines * INITIAL_BURST_SHARE);
  const startAtMs = Array.from({ length: opts.pipelines }, (_, i) =>
    i < burst ? 0 : Math.round(rnd() * span * ARRIVAL_SHARE),
  );
  const kills: ChaosSchedule['kills'] = [];
  let at = 0;
  for (let i = 0; i < opts.kills; i++) {
    at += Math.round((span / (opts.kills + 1)) * (0.3 + 0.7 * rnd()));
    kills.push({ atMs: at, workerPick: rnd() });
  }
  const restartAtMs = opts.restartServer ? Math.round(span * (0.25 + 0.3 * rnd())) : undefined;
  // Drawn last, so the kills and the restart of a seed stay where they were.
  const ledger = {
    terminateAtMs: Math.round(span * (0.3 + 0.3 * rnd())),
    forgeAtMs: Math.round(span * (0.2 + 0.3 * rnd())),
  };
  return { startAtMs, kills, restartAtMs, ledger };
}
