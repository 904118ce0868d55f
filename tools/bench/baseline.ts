/**
 * The naive baseline: the same pipeline as a plain async function over the same vendor
 * client, with no Temporal. Same create calls, same polling intervals
 * (DEFAULT_POLICIES of src/contract/poll-policy.ts, imported, not copied: the first query
 * right after the create, then growing waits, slower while callbacks are expected, a
 * callback cutting the wait short and confirmed by one query), same downloads.
 *
 * It honours the vendor's rules where a naive loop would: the per-task minimum query
 * intervals are in the policies (GetAsset 500 ms, review 1 s), and a 429 is retried after
 * its Retry-After (never below that minimum). Nothing else is retried: any other error
 * fails the pipeline. It does NOT coordinate GetAsset across pipelines, so it meets the
 * vendor's 10/s per token limit as 429s, which it counts.
 */
import { createHash } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import {
  parseDefinition,
  type PipelineDefinition,
  type PipelineDefinitionInput,
} from '../../src/definition/definition';
import {
  ASSET_PENDING_STATES,
  ERASE_TERMINAL_STATES,
  GENERATION_TERMINAL_STATES,
  RATE_LIMIT_WAIT_MS,
  REVIEW_TERMINAL_STATES,
} from '../../src/vendor-api/assumed-values';
import { planReviewBatches } from '../../src/vendor-api/batching';
import { RateLimitedError } from '../../src/vendor-api/errors';
import type { VendorClient } from '../../src/vendor-api';
import { DEFAULT_POLICIES, isOneOf, type PollPolicy } from '../../src/contract/poll-policy';

/** Wakes a waiting poll loop when a callback arrives (a hint, as in reelflow). */
export class Hints {
  private readonly flags = new Set<string>();
  private readonly waiters = new Map<string, () => void>();

  notify(key: string): void {
    this.flags.add(key);
    this.waiters.get(key)?.();
  }

  /** Waits up to `ms` or until `key` is notified; true on a hint (which it consumes). */
  async wait(key: string, ms: number): Promise<boolean> {
    if (!this.flags.has(key)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(key);
          resolve();
        };
        const timer = setTimeout(done, ms);
        this.waiters.set(key, done);
      });
    }
    const hinted = this.flags.delete(key);
    return hinted;
  }
}

export interface BaselineDeps {
  vendor: VendorClient;
  archiveDir: string;
  /** When set, creates carry this callback URL and callbacks wake the poll loops through `hints`. */
  callbacks?: { urlFor(index: number, step: string): string; hints: Hints };
  /** Epoch ms after which a pipeline gives up. */
  deadline: number;
}

export interface BaselinePipelineResult {
  index: number;
  ok: boolean;
  error?: string;
  startedAt: number;
  endedAt: number;
  /** 429 answers this pipeline received (and waited out). */
  rateLimited: number;
  /** Milliseconds per stage, measured like reelflow's PipelineResult.timings (archive: both downloads). */
  timings: Partial<Record<StageTiming, number>>;
}

export type StageTiming = 'review' | 'assets' | 'generation' | 'erase' | 'archive';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One pipeline's run: its definition, its counts, and the calls every stage makes the same way. */
class BaselineRun {
  rateLimited = 0;
  readonly timings: BaselinePipelineResult['timings'] = {};

  constructor(
    readonly index: number,
    readonly deps: BaselineDeps,
    readonly def: PipelineDefinition,
  ) {}

  get vendor(): VendorClient {
    return this.deps.vendor;
  }

  /** The callback_url field for a create of `step`, when callbacks are on. */
  cbUrl(step: string): { callback_url?: string } {
    const callbacks = this.deps.callbacks;
    return callbacks ? { callback_url: callbacks.urlFor(this.index, step) } : {};
  }

  async timed<T>(stage: StageTiming, fn: () => Promise<T>): Promise<T> {
    const t0 = Date.now();
    try {
      return await fn();
    } finally {
      this.timings[stage] = (this.timings[stage] ?? 0) + (Date.now() - t0);
    }
  }

  /** One call; a 429 is waited out (Retry-After, at least `floorMs`) and repeated. */
  async call<T>(fn: () => Promise<T>, floorMs = RATE_LIMIT_WAIT_MS): Promise<T> {
    for (;;) {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof RateLimitedError) || Date.now() > this.deps.deadline) throw err;
        this.rateLimited += 1;
        await sleep(Math.max(err.retryAfterMs ?? floorMs, floorMs));
      }
    }
  }

  /** The loop of pollUntilDone, without Temporal. */
  async poll<T>(
    step: string,
    policy: PollPolicy,
    useCallbacks: boolean,
    query: () => Promise<T>,
    done: (v: T) => boolean,
  ): Promise<T> {
    const callbacks = this.deps.callbacks;
    let wait = policy.firstMs;
    for (;;) {
      const value = await this.call(query, policy.minMs);
      if (done(value)) return value;
      if (Date.now() > this.deps.deadline) throw new Error(`${step}: not finished before the deadline`);
      const delay = Math.max(policy.minMs, useCallbacks ? wait * policy.callbackSlowdown : wait);
      if (useCallbacks && callbacks) await callbacks.hints.wait(`${this.index}/${step}`, delay);
      else await sleep(delay);
      wait = Math.min(wait * policy.factor, policy.maxMs);
    }
  }

  async archive(name: string, url: string): Promise<void> {
    if (this.def.options.archive)
      await this.timed('archive', () => download(url, path.join(this.deps.archiveDir, `p${this.index}`), name));
  }
}

type Reviewed = { sourceUrl: string; assetUrl?: string; passed: boolean }[];

/** Review: every batch submitted and polled in parallel; the items in batch order. */
async function review(run: BaselineRun): Promise<Reviewed> {
  const reviewed: Reviewed = [];
  const { def, vendor } = run;
  if (!def.review) return reviewed;
  const batches = planReviewBatches(def.review.media, { assetType: def.review.assetType });
  const results = await run.timed('review', () =>
    Promise.all(
      batches.map(async (batch, b) => {
        const step = `review-b${b}`;
        const accepted = await run.call(() =>
          vendor.review.submitAsync({ images: batch.urls, asset_type: batch.assetType, ...run.cbUrl(step) }),
        );
        return run.poll(
          step,
          DEFAULT_POLICIES.review,
          def.options.callbacks,
          () => vendor.review.getTask(accepted.task_id),
          (t) => isOneOf(t.status, REVIEW_TERMINAL_STATES),
        );
      }),
    ),
  );
  for (const task of results) {
    if (task.status !== 'completed') throw new Error(`review task ${task.task_id} ended ${task.status}`);
    for (const item of task.result?.items ?? []) {
      reviewed.push({
        sourceUrl: item.source_url,
        assetUrl: item.asset_url,
        passed: item.submit_review_status === 1,
      });
    }
  }
  return reviewed;
}

/** Assets: each item created by URL in an existing group and polled until it settles; name → Asset:// URL. */
async function registerAssets(run: BaselineRun): Promise<Map<string, string>> {
  const assets = new Map<string, string>();
  const { def, vendor } = run;
  if (!def.assets) return assets;
  const { group, items } = def.assets;
  if (!('id' in group)) throw new Error('the baseline takes an existing group id');
  await run.timed('assets', () =>
    Promise.all(
      items.map(async (item) => {
        if (!('url' in item)) throw new Error('the baseline registers assets by URL only');
        const created = await run.call(() =>
          vendor.assets.createAsset({ GroupId: group.id, URL: item.url, AssetType: item.type, Name: item.name }),
        );
        const asset = await run.poll(
          `asset-${item.name}`,
          DEFAULT_POLICIES.asset,
          false,
          () => vendor.assets.getAsset({ Id: created.Id }),
          (a) => !isOneOf(a.Status, ASSET_PENDING_STATES),
        );
        if (asset.Status !== 'Active') throw new Error(`asset ${item.name} ended ${asset.Status}`);
        assets.set(item.name, `Asset://${created.Id}`);
      }),
    ),
  );
  return assets;
}

/** The generation's content with ref:review/N and ref:asset/NAME replaced by what those stages produced. */
function resolvedContent(
  generation: NonNullable<PipelineDefinition['generation']>,
  reviewed: Reviewed,
  assets: Map<string, string>,
) {
  return generation.content.map((c) => {
    if (c.type === 'text') return c;
    const holder = (c as unknown as Record<string, { url: string }>)[c.type];
    let url = holder.url;
    const r = /^ref:review\/(\d+)$/.exec(url);
    if (r) url = reviewed[Number(r[1])]?.assetUrl ?? url;
    const a = /^ref:asset\/(.+)$/.exec(url);
    if (a) url = assets.get(a[1]) ?? url;
    return { ...c, [c.type]: { url } };
  });
}

/** Generation (then its video archived), then erase (then its video archived). */
async function generateAndErase(run: BaselineRun, reviewed: Reviewed, assets: Map<string, string>): Promise<void> {
  const { def, vendor } = run;
  if (!def.generation) return;
  const content = resolvedContent(def.generation, reviewed, assets);
  const task = await run.timed('generation', async () => {
    const created = await run.call(() =>
      vendor.generation.create({ ...def.generation!, content, ...run.cbUrl('generation') }),
    );
    return run.poll(
      'generation',
      DEFAULT_POLICIES.generation,
      def.options.callbacks,
      () => vendor.generation.get(created.id),
      (t) => isOneOf(t.status, GENERATION_TERMINAL_STATES),
    );
  });
  if (task.status !== 'succeeded' || !task.video_url) throw new Error(`generation ${task.id} ended ${task.status}`);
  await run.archive('generated', task.video_url);
  if (!def.erase) return;
  const done = await run.timed('erase', async () => {
    const erase = await run.call(() => vendor.erase.create({ video_url: task.video_url!, ...run.cbUrl('erase') }));
    return run.poll(
      'erase',
      DEFAULT_POLICIES.erase,
      def.options.callbacks,
      () => vendor.erase.get(erase.task_id),
      (t) => isOneOf(t.status, ERASE_TERMINAL_STATES),
    );
  });
  if (done.status !== 'SUCCESS' || !done.video_url) throw new Error(`erase ${done.task_id} ended ${done.status}`);
  await run.archive('erased', done.video_url);
}

export async function runBaselinePipeline(
  input: PipelineDefinitionInput,
  index: number,
  deps: BaselineDeps,
): Promise<BaselinePipelineResult> {
  const startedAt = Date.now();
  const run = new BaselineRun(index, deps, parseDefinition(input));
  const counts = () => ({ startedAt, endedAt: Date.now(), rateLimited: run.rateLimited, timings: run.timings });
  try {
    const reviewed = await review(run);
    const assets = await registerAssets(run);
    await generateAndErase(run, reviewed, assets);
    return { index, ok: true, ...counts() };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { index, ok: false, error, ...counts() };
  }
}

/** Downloads `url` to dir/name with its sha256 in name.sha256, flushed to disk (as reelflow's archive does). */
async function download(url: string, dir: string, name: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const res = await request(url, { method: 'GET' });
  if (res.statusCode < 200 || res.statusCode >= 300) {
    await res.body.dump();
    throw new Error(`download ${name}: HTTP ${res.statusCode}`);
  }
  const hash = createHash('sha256');
  const fh = await open(path.join(dir, name), 'w');
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      hash.update(chunk);
      await fh.write(chunk);
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
  const sum = await open(path.join(dir, `${name}.sha256`), 'w');
  try {
    await sum.write(`${hash.digest('hex')}  ${name}\n`);
    await sum.sync();
  } finally {
    await sum.close();
  }
}
