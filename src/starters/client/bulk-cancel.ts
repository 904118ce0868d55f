/**
 * Cancel many pipelines at once: the running pipelines of a tenant, a batch or a
 * visibility query (the user's clause in parentheses, ANDed with the pipeline filter, so
 * an OR in it cannot widen the match). Counted first (countRunningPipelines); then
 * Temporal's batch operation cancels them server-side (the server pages through the
 * query and retries), with describeBatchOperation for progress. Where the server refuses
 * batch operations (not implemented, disabled, its limit of concurrent ones reached, no
 * permission), each pipeline is cancelled by its handle, a few at a time.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { buildListQuery, cancelPipeline, type ListPipelinesOptions } from './pipeline-client';

/** Which pipelines: any of these, ANDed (at least one). */
export type PipelineSelection = Pick<ListPipelinesOptions, 'tenant' | 'batchId' | 'query' | 'taskQueue'>;

/** The visibility query of the running pipelines a selection names. */
export function runningQuery(selection: PipelineSelection): string {
  const { tenant, batchId, query, taskQueue } = selection;
  if (tenant === undefined && batchId === undefined && !query?.trim()) {
    throw new RangeError('selection: give a tenant, a batch id or a query');
  }
  return buildListQuery({ tenant, batchId, query, taskQueue, status: 'running' });
}

/** How many running pipelines a selection names now (visibility: a start of the last second may be missing). */
export async function countRunningPipelines(client: Client, selection: PipelineSelection): Promise<number> {
  return (await client.workflow.count(runningQuery(selection))).count;
}

export interface BulkCancelProgress {
  done: number;
  failed: number;
  /** 0 while the server has not counted yet. */
  total: number;
}

export interface BulkCancelOptions {
  /** Shown in the Web UI and history ("reelflow cancel --tenant acme"). */
  reason?: string;
  /** `each`: skip the batch operation (default `batch-operation`, with `each` as fallback). */
  mode?: 'batch-operation' | 'each';
  /** Cancels in flight at once when cancelling each (default 8). */
  concurrency?: number;
  /** Between progress reads of a batch operation (default 500 ms). */
  pollMs?: number;
  onProgress?: (p: BulkCancelProgress) => void;
  /** Stops waiting (a batch operation goes on on the server; its job id is in the error). */
  signal?: AbortSignal;
}

export interface BulkCancelReport extends BulkCancelProgress {
  query: string;
  mode: 'batch-operation' | 'each';
  /** The batch operation's job id (`temporal batch describe --job-id`). */
  jobId?: string;
  /** Why the batch operation was not used, when it was tried. */
  fallback?: string;
  /** Cancelling each: the pipelines whose cancel failed, and why. */
  failures: { workflowId: string; error: string }[];
}

const STATE = temporal.api.enums.v1.BatchOperationState;
/** gRPC codes that mean "no batch operation here", not "your request is wrong". */
const UNAVAILABLE_HERE: Record<number, string> = {
  7: 'permission denied',
  8: 'the limit of concurrent batch operations is reached',
  9: 'batch operations are disabled',
  12: 'batch operations are not implemented',
};

function batchOperationUnavailable(err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'number' || !(code in UNAVAILABLE_HERE)) return undefined;
  const details = (err as { details?: unknown }).details;
  return `${UNAVAILABLE_HERE[code]}${typeof details === 'string' && details ? ` (${details})` : ''}`;
}

/** Waits `ms`, or less when `signal` aborts (never rejects). */
const sleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

async function viaBatchOperation(client: Client, query: string, opts: BulkCancelOptions): Promise<BulkCancelReport> {
  const { namespace, identity } = client.options;
  const jobId = `reelflow-cancel-${randomBytes(6).toString('hex')}`;
  await client.workflowService.startBatchOperation({
    namespace,
    jobId,
    visibilityQuery: query,
    reason: opts.reason ?? 'reelflow cancel',
    cancellationOperation: { identity },
  });
  for (;;) {
    const d = await client.workflowService.describeBatchOperation({ namespace, jobId });
    const p = {
      total: Number(d.totalOperationCount),
      done: Number(d.completeOperationCount),
      failed: Number(d.failureOperationCount),
    };
    opts.onProgress?.(p);
    if (d.state === STATE.BATCH_OPERATION_STATE_FAILED) {
      throw new Error(`batch operation ${jobId} failed on the server after ${p.done} of ${p.total} cancels`);
    }
    if (d.state !== STATE.BATCH_OPERATION_STATE_RUNNING && d.state !== STATE.BATCH_OPERATION_STATE_UNSPECIFIED) {
      return { ...p, query, mode: 'batch-operation', jobId, failures: [] };
    }
    if (opts.signal?.aborted) {
      throw new Error(`stopped waiting; batch operation ${jobId} goes on (temporal batch describe --job-id ${jobId})`);
    }
    await sleep(opts.pollMs ?? 500, opts.signal);
  }
}

async function eachByHandle(client: Client, query: string, opts: BulkCancelOptions): Promise<BulkCancelReport> {
  const ids: string[] = [];
  for await (const info of client.workflow.list({ query, pageSize: 1000 })) ids.push(info.workflowId);
  const report: BulkCancelReport = { query, mode: 'each', total: ids.length, done: 0, failed: 0, failures: [] };
  opts.onProgress?.(report);
  let next = 0;
  const worker = async () => {
    while (next < ids.length && !opts.signal?.aborted) {
      const workflowId = ids[next++];
      try {
        await cancelPipeline(client, workflowId);
        report.done++;
      } catch (err) {
        // Ended meanwhile: nothing left to cancel, which is the goal.
        if ((err as Error).name === 'WorkflowNotFoundError') report.done++;
        else {
          report.failed++;
          report.failures.push({ workflowId, error: err instanceof Error ? err.message : String(err) });
        }
      }
      opts.onProgress?.(report);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
  return report;
}

/**
 * Requests cancellation of every running pipeline the selection names. Resolves with the
 * counts (`failed` > 0: some cancels failed); vendor tasks already created keep running
 * at the vendor, as with cancelPipeline.
 */
export async function cancelPipelines(
  client: Client,
  selection: PipelineSelection,
  opts: BulkCancelOptions = {},
): Promise<BulkCancelReport> {
  const query = runningQuery(selection);
  if (opts.mode === 'each') return eachByHandle(client, query, opts);
  try {
    return await viaBatchOperation(client, query, opts);
  } catch (err) {
    const why = batchOperationUnavailable(err);
    if (why === undefined) throw err;
    return { ...(await eachByHandle(client, query, opts)), fallback: why };
  }
}
