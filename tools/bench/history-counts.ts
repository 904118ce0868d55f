/**
 * A pipeline's history size, summed over its continue-as-new runs: events and workflow
 * tasks (WorkflowTaskCompleted events), read after the run (not measured).
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface HistoryCounts {
  events: number;
  workflowTasks: number;
  runs: number;
}

/** Counts of one run's events, and the run it continued as, if any (pure). */
export function countRun(events: readonly HistoryEvent[]): {
  events: number;
  workflowTasks: number;
  nextRunId?: string;
} {
  const completed = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED;
  const last = events[events.length - 1];
  const nextRunId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  return {
    events: events.length,
    workflowTasks: events.filter((e) => e.eventType === completed).length,
    ...(nextRunId ? { nextRunId } : {}),
  };
}

/** Follows the chain from the first run to the last; at most `maxRuns` runs are read. */
export async function historyCounts(
  client: Client,
  workflowId: string,
  firstRunId: string,
  maxRuns = 100,
): Promise<HistoryCounts> {
  const total: HistoryCounts = { events: 0, workflowTasks: 0, runs: 0 };
  let runId: string | undefined = firstRunId;
  while (runId && total.runs < maxRuns) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const run = countRun(history.events ?? []);
    total.events += run.events;
    total.workflowTasks += run.workflowTasks;
    total.runs += 1;
    runId = run.nextRunId;
  }
  return total;
}
