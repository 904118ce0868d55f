/**
 * Waiting for a batch: polls Temporal visibility for the pipelines tagged with the
 * batch id (ReelflowBatch) until every one has closed. Visibility is eventually
 * consistent, so a batch started a moment ago may not be listed whole yet: `expect`
 * (the number of pipelines the batch has) keeps waiting until that many are listed.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { failureChain, listPipelines, type PipelineSummary } from './pipeline-client';
import { nextRerunId } from './batch-rerun';

export interface WaitForBatchOptions {
  /** Wait until at least this many pipelines of the batch are listed (default 1). */
  expect?: number;
  /** Between visibility queries (default 2000 ms). */
  intervalMs?: number;
  /** Give up after this long: resolves with `done: false`. */
  timeoutMs?: number;
  /** Stop waiting (the pipelines keep running): rejects with the abort reason. */
  signal?: AbortSignal;
  /** After each visibility query. */
  onPoll?: (state: BatchState) => void;
}

export interface BatchState {
  batchId: string;
  /** Every listed pipeline closed, and at least `expect` listed. */
  done: boolean;
  total: number;
  closed: number;
  /** Pipelines per execution status: completed, failed, running, … */
  counts: Record<string, number>;
  pipelines: PipelineSummary[];
}

export interface BatchFailure {
  workflowId: string;
  executionStatus: string;
  stage?: string;
  /** The failure's message chain, outermost first. */
  messages: string[];
}

/**
 * The batch as listed: one entry per workflow id. A run that continued as new is
 * replaced by its successor (which carries the search attributes on); until the
 * successor is listed it counts as running. A pipeline rerun by `rerun --batch` is
 * replaced by its rerun (`<id>-rerun<n>`), so the batch keeps one entry per line.
 */
export function batchState(batchId: string, listed: PipelineSummary[], expect = 1): BatchState {
  const byId = new Map<string, PipelineSummary>();
  for (const p of listed) {
    const seen = byId.get(p.workflowId);
    if (!seen || seen.executionStatus === 'continued-as-new') byId.set(p.workflowId, p);
  }
  const pipelines = [...byId.values()].filter((p) => !byId.has(nextRerunId(p.workflowId)));
  const counts: Record<string, number> = {};
  for (const p of pipelines) counts[p.executionStatus] = (counts[p.executionStatus] ?? 0) + 1;
  const closed = pipelines.filter((p) => !['running', 'continued-as-new'].includes(p.executionStatus)).length;
  const done = pipelines.length >= Math.max(1, expect) && closed === pipelines.length;
  return { batchId, done, total: pipelines.length, closed, counts, pipelines };
}

/** Waits `ms`, or less when `signal` aborts (never rejects). */
const sleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

/** Polls until every pipeline of the batch has closed (or the timeout passes). */
export async function waitForBatch(
  client: Client,
  batchId: string,
  opts: WaitForBatchOptions = {},
): Promise<BatchState> {
  const deadline = opts.timeoutMs !== undefined ? Date.now() + opts.timeoutMs : Infinity;
  for (;;) {
    if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('aborted');
    const pipelines = await listPipelines(client, { batchId, limit: Number.MAX_SAFE_INTEGER });
    const state = batchState(batchId, pipelines, opts.expect);
    opts.onPoll?.(state);
    if (state.done || Date.now() >= deadline) return state;
    await sleep(Math.min(opts.intervalMs ?? 2_000, Math.max(0, deadline - Date.now())), opts.signal);
  }
}

/** Why the pipelines that did not complete ended so (their failure chains), at most `max` of them. */
export async function batchFailures(client: Client, pipelines: PipelineSummary[], max = 20): Promise<BatchFailure[]> {
  const ended = pipelines
    .filter((p) => !['running', 'continued-as-new', 'completed'].includes(p.executionStatus))
    .slice(0, max);
  return Promise.all(
    ended.map(async (p) => {
      const messages = await client.workflow
        .getHandle(p.workflowId)
        .result()
        .then(
          () => [],
          (err: unknown) => failureChain(err),
        );
      return {
        workflowId: p.workflowId,
        executionStatus: p.executionStatus,
        ...(p.stage !== undefined ? { stage: p.stage } : {}),
        messages,
      };
    }),
  );
}
