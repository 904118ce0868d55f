/**
 * A pipeline's history size, summed over its continue-as-new runs: events, workflow tasks
 * (WorkflowTaskCompleted events) and where its workflow tasks spent their time, read after
 * the run (not measured). The split shows how long a pipeline waited for a worker's
 * workflow thread (docs/benchmarks.md, "Where a pipeline's time goes").
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { tsToMs } from '@temporalio/common/lib/time';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const T = temporal.api.enums.v1.EventType;

export interface HistoryCounts {
  events: number;
  workflowTasks: number;
  /** Workflow tasks' time from scheduled to started: queued for a worker's workflow thread. */
  taskQueuedMs: number;
  /** Workflow tasks' time from started to completed (or failed): on the worker, local activities included. */
  taskRunningMs: number;
  /** The first run's start to its first activity scheduled: what comes before the first vendor call. */
  firstActivityMs?: number;
  runs: number;
}

type RunCounts = Omit<HistoryCounts, 'runs'> & { nextRunId?: string };

/** Counts of one run's events, and the run it continued as, if any (pure). */
export function countRun(events: readonly HistoryEvent[]): RunCounts {
  const last = events[events.length - 1];
  const nextRunId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  return {
    events: events.length,
    workflowTasks: events.filter((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length,
    ...taskTimes(events),
    ...firstActivity(events),
    ...(nextRunId ? { nextRunId } : {}),
  };
}

/** Sums each workflow task's queued and running time: scheduled → started → completed or failed. */
function taskTimes(events: readonly HistoryEvent[]): { taskQueuedMs: number; taskRunningMs: number } {
  let taskQueuedMs = 0;
  let taskRunningMs = 0;
  let scheduledAt: number | undefined;
  let startedAt: number | undefined;
  for (const e of events) {
    const at = e.eventTime ? tsToMs(e.eventTime) : undefined;
    if (at === undefined) continue;
    if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) scheduledAt = at;
    else if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_STARTED && scheduledAt !== undefined) {
      taskQueuedMs += at - scheduledAt;
      startedAt = at;
    } else if (
      (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED || e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_FAILED) &&
      startedAt !== undefined
    ) {
      taskRunningMs += at - startedAt;
      scheduledAt = startedAt = undefined;
    }
  }
  return { taskQueuedMs, taskRunningMs };
}

function firstActivity(events: readonly HistoryEvent[]): { firstActivityMs?: number } {
  const started = events[0]?.eventTime;
  const first = events.find((e) => e.eventType === T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)?.eventTime;
  return started && first ? { firstActivityMs: tsToMs(first) - tsToMs(started) } : {};
}

/** Follows the chain from the first run to the last; at most `maxRuns` runs are read. */
export async function historyCounts(
  client: Client,
  workflowId: string,
  firstRunId: string,
  maxRuns = 100,
): Promise<HistoryCounts> {
  const total: HistoryCounts = { events: 0, workflowTasks: 0, taskQueuedMs: 0, taskRunningMs: 0, runs: 0 };
  let runId: string | undefined = firstRunId;
  while (runId && total.runs < maxRuns) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const run = countRun(history.events ?? []);
    total.events += run.events;
    total.workflowTasks += run.workflowTasks;
    total.taskQueuedMs += run.taskQueuedMs;
    total.taskRunningMs += run.taskRunningMs;
    if (total.runs === 0 && run.firstActivityMs !== undefined) total.firstActivityMs = run.firstActivityMs;
    total.runs += 1;
    runId = run.nextRunId;
  }
  return total;
}
