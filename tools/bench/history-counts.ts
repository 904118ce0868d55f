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
const { TIMEOUT_TYPE_SCHEDULE_TO_START } = temporal.api.enums.v1.TimeoutType;

export interface HistoryCounts {
  events: number;
  workflowTasks: number;
  /**
   * Workflow tasks that timed out before a worker took them (WorkflowTaskTimedOut, schedule to
   * start): a task that waited 10 s on its worker's sticky queue, scheduled again on the shared one.
   */
  taskTimeouts: number;
  /** Workflow tasks' time from scheduled to started: queued for a worker's workflow thread. */
  taskQueuedMs: number;
  /** Workflow tasks' time from started to completed (or failed): on the worker, local activities included. */
  taskRunningMs: number;
  /** The first run's start to its first activity scheduled: what comes before the first vendor call. */
  firstActivityMs?: number;
  /**
   * The first run's first ledger answer (a spendAnswered signal) to the workflow task that reads
   * it: how long that task waited for the worker (docs/benchmarks.md, "Budgets (--scenario budgets)").
   */
  answerWaitMs?: number;
  /** Messages to and from tenant ledgers; absent when there were none (tenants off). */
  ledger?: LedgerMessages;
  runs: number;
}

/**
 * A pipeline's messages to and from its tenant ledgers (docs/tenants.md, "Budgets"): asks
 * (each an askSpend local activity, a signal-with-start to the ledger, one marker), answers
 * received (spendAnswered signals) and settles sent (each a settleSpend local activity, one marker).
 * Since behaviour `spendInCheck` the plan's ask rides in the definition check and a pipeline
 * sends no settle: those show only on the ledger's side (its reserveSpendAsks signals, a
 * worker's plan asks together).
 */
export interface LedgerMessages {
  asks: number;
  answers: number;
  settles: number;
}

type RunCounts = Omit<HistoryCounts, 'runs'> & { nextRunId?: string };

/** The activity type a local activity's marker names (its `data` detail, JSON written by the SDK's core). */
function localActivityType(e: HistoryEvent): string | undefined {
  const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string; activityType?: string };
    return parsed.activity_type ?? parsed.activityType;
  } catch {
    return undefined;
  }
}

/** The ledger messages in one run's events (pure). */
export function ledgerMessagesOf(events: readonly HistoryEvent[]): LedgerMessages {
  const m: LedgerMessages = { asks: 0, answers: 0, settles: 0 };
  for (const e of events) {
    const local = e.eventType === T.EVENT_TYPE_MARKER_RECORDED ? localActivityType(e) : undefined;
    if (local === 'askSpend') m.asks++;
    else if (local === 'settleSpend') m.settles++;
    else if (e.workflowExecutionSignaledEventAttributes?.signalName === 'spendAnswered') m.answers++;
  }
  return m;
}

/** Counts of one run's events, and the run it continued as, if any (pure). */
export function countRun(events: readonly HistoryEvent[]): RunCounts {
  const last = events[events.length - 1];
  const nextRunId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  const ledger = ledgerMessagesOf(events);
  return {
    events: events.length,
    workflowTasks: events.filter((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length,
    taskTimeouts: events.filter(
      (e) => e.workflowTaskTimedOutEventAttributes?.timeoutType === TIMEOUT_TYPE_SCHEDULE_TO_START,
    ).length,
    ...taskTimes(events),
    ...firstActivity(events),
    ...answerWait(events),
    ...(ledger.asks + ledger.answers + ledger.settles > 0 ? { ledger } : {}),
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

function answerWait(events: readonly HistoryEvent[]): { answerWaitMs?: number } {
  const i = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'spendAnswered');
  const started = i < 0 ? undefined : events.slice(i).find((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  const [from, to] = [events[i]?.eventTime, started?.eventTime];
  return from && to ? { answerWaitMs: tsToMs(to) - tsToMs(from) } : {};
}

function addMessages(a: LedgerMessages | undefined, b: LedgerMessages): LedgerMessages {
  return a ? { asks: a.asks + b.asks, answers: a.answers + b.answers, settles: a.settles + b.settles } : { ...b };
}

/** Follows the chain from the first run to the last; at most `maxRuns` runs are read. */
export async function historyCounts(
  client: Client,
  workflowId: string,
  firstRunId: string,
  maxRuns = 100,
): Promise<HistoryCounts> {
  const total: HistoryCounts = {
    events: 0,
    workflowTasks: 0,
    taskTimeouts: 0,
    taskQueuedMs: 0,
    taskRunningMs: 0,
    runs: 0,
  };
  let runId: string | undefined = firstRunId;
  while (runId && total.runs < maxRuns) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const run = countRun(history.events ?? []);
    total.events += run.events;
    total.workflowTasks += run.workflowTasks;
    total.taskTimeouts += run.taskTimeouts;
    total.taskQueuedMs += run.taskQueuedMs;
    total.taskRunningMs += run.taskRunningMs;
    if (total.runs === 0 && run.firstActivityMs !== undefined) total.firstActivityMs = run.firstActivityMs;
    if (total.runs === 0 && run.answerWaitMs !== undefined) total.answerWaitMs = run.answerWaitMs;
    if (run.ledger) total.ledger = addMessages(total.ledger, run.ledger);
    total.runs += 1;
    runId = run.nextRunId;
  }
  return total;
}
