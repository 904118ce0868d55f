/**
 * Rerun a batch's failed pipelines (`reelflow rerun --batch`), each under the rerun rules
 * of rerun.ts: finished outputs reused, no paid task created twice. A rerun joins the
 * batch (ReelflowBatch) under the id `<failed id>-rerun<n>`, refused if it already exists
 * (REJECT_DUPLICATE), so rerunning the batch again reruns nothing twice: a failed pipeline
 * with a rerun is skipped, and a failed rerun is rerun in its turn (`-rerun2`, …).
 */
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { checkIdPart, failureChain, listPipelines, type PipelineSummary } from './pipeline-client';
import { RerunRefusedError, rerunPipeline, type RerunFrom, type RerunRefusal } from './rerun';

/** The closed states a batch rerun redoes. */
const RERUN_STATES = new Set(['failed', 'timed-out']);

/** `<id>-rerun1`, and `<id>-rerun<n+1>` for `<id>-rerun<n>`: one id per generation of reruns. */
export function nextRerunId(workflowId: string): string {
  const m = /^(.*)-rerun(\d+)$/.exec(workflowId);
  return m ? `${m[1]}-rerun${Number(m[2]) + 1}` : `${workflowId}-rerun1`;
}

export interface BatchRerunPlan {
  batchId: string;
  /** Failed or timed out, with no rerun yet: what a rerun of the batch starts. */
  toRerun: PipelineSummary[];
  /** Failed ones already rerun (their rerun is in the batch). */
  alreadyRerun: { workflowId: string; rerunId: string }[];
  /** Every pipeline of the batch, by its state. */
  total: number;
}

/** What `rerunBatch` would do now (visibility; nothing is started). */
export async function planBatchRerun(client: Client, batchId: string): Promise<BatchRerunPlan> {
  checkIdPart('batchId', batchId);
  const all = await listPipelines(client, { batchId, limit: Number.MAX_SAFE_INTEGER });
  const ids = new Set(all.map((p) => p.workflowId));
  const failed = all.filter((p) => RERUN_STATES.has(p.executionStatus));
  return {
    batchId,
    toRerun: failed.filter((p) => !ids.has(nextRerunId(p.workflowId))),
    alreadyRerun: failed
      .filter((p) => ids.has(nextRerunId(p.workflowId)))
      .map((p) => ({ workflowId: p.workflowId, rerunId: nextRerunId(p.workflowId) })),
    total: all.length,
  };
}

export type BatchRerunResult =
  | { workflowId: string; outcome: 'rerun'; rerunId: string; from: RerunFrom; reused: string[]; adopts: string[] }
  | { workflowId: string; outcome: 'already-rerun'; rerunId: string }
  | { workflowId: string; outcome: 'failed'; error: string; reason?: RerunRefusal };

export interface BatchRerunOptions {
  /** The step each rerun redoes from (default: each one's first unfinished step). */
  from?: RerunFrom;
  /** Reruns started at once (default 4: each first queries its source's outputs). */
  concurrency?: number;
  onResult?: (result: BatchRerunResult, done: number, total: number) => void;
}

async function rerunOne(client: Client, p: PipelineSummary, batchId: string, from?: RerunFrom) {
  const rerunId = nextRerunId(p.workflowId);
  try {
    const started = await rerunPipeline(client, p.workflowId, {
      workflowId: rerunId,
      batchId,
      ...(from !== undefined ? { from } : {}),
    });
    const adopts = started.adopts.map((t) => t.id);
    return {
      workflowId: p.workflowId,
      outcome: 'rerun' as const,
      rerunId,
      from: started.from,
      reused: started.reused,
      adopts,
    };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      return { workflowId: p.workflowId, outcome: 'already-rerun' as const, rerunId };
    }
    const reason = err instanceof RerunRefusedError ? { reason: err.reason } : {};
    return { workflowId: p.workflowId, outcome: 'failed' as const, error: failureChain(err).join(': '), ...reason };
  }
}

/** Reruns the pipelines of a plan (planBatchRerun), a few at a time; one result per pipeline. */
export async function rerunBatch(
  client: Client,
  plan: BatchRerunPlan,
  opts: BatchRerunOptions = {},
): Promise<BatchRerunResult[]> {
  const results: BatchRerunResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < plan.toRerun.length) {
      const r = await rerunOne(client, plan.toRerun[next++], plan.batchId, opts.from);
      results.push(r);
      opts.onResult?.(r, results.length, plan.toRerun.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  return results;
}
