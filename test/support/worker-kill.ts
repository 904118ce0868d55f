/**
 * A worker process killed at a named point of a pipeline, and the takeover that follows, as
 * docs/architecture.md ("Workflow time after a worker dies") describes it: the workflow task
 * after the kill goes to the dead worker's sticky queue and times out; meanwhile a status
 * query makes the next worker cache the pipeline, and the task it then takes may carry a
 * stale Date.now() live, while a replay of the same history has the right one.
 */
import type { ChildProcess } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { statusQuery, type PipelineResult, type PipelineStatus } from '../../src/contract/messages';
import type { videoPipeline } from '../../src/workflows';
import { until } from './poll';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A command's Web UI summary, as the history holds it ('' without one). */
export function summaryOf(e: HistoryEvent): string {
  return e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : '';
}

/** The summaries of the timers the pipeline started, in order. */
export async function timersOf(handle: WorkflowHandle): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.filter((e) => e.timerStartedEventAttributes).map(summaryOf);
}

/**
 * SIGKILLs `worker` as soon as the pipeline's history holds a timer whose summary includes
 * `timer`: the worker has just completed the workflow task that started it, and holds no
 * task of the pipeline until that timer (or a signal) wakes it, so the kill lands at the
 * same point every run when the timer is seconds long.
 */
export async function killWhenTimerStarts(handle: WorkflowHandle, worker: ChildProcess, timer: string): Promise<void> {
  await until(
    `a timer "${timer}" in ${handle.workflowId}`,
    async () => (await timersOf(handle)).some((s) => s.includes(timer)),
    { timeoutMs: 90_000, everyMs: 50 },
  );
  worker.kill('SIGKILL');
  await new Promise((r) => worker.once('exit', r));
}

/**
 * The pipeline's result, its status queried every 300 ms meanwhile: as an operator's
 * `reelflow status` or the callback receiver would, so the worker that takes over caches
 * the pipeline before its next workflow task.
 */
export async function resultWhileQuerying(handle: WorkflowHandle<typeof videoPipeline>): Promise<PipelineResult> {
  let done = false;
  const querying = (async () => {
    while (!done) {
      await handle.query(statusQuery).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
  try {
    return await handle.result();
  } finally {
    done = true;
    await querying;
  }
}

/**
 * waitForStatus through a takeover: a query can fail while the dead worker's sticky queue
 * still holds the pipeline, so a failed query is asked again.
 */
export async function statusThroughTakeover(
  handle: WorkflowHandle,
  pred: (s: PipelineStatus) => boolean,
): Promise<PipelineStatus> {
  let last: PipelineStatus | undefined;
  return until(
    () => `a status to match; last: ${JSON.stringify(last)}`,
    async () => {
      last = await handle.query(statusQuery).catch(() => last);
      return last !== undefined && pred(last) && last;
    },
    { timeoutMs: 120_000, everyMs: 300 },
  );
}
