/**
 * A tenant ledger's own history, over all its runs (continue-as-new): what the ledger
 * workflow did for a bench run's pipelines — its events, workflow tasks, signals received
 * and sent, activities by type (docs/tenants.md, "Budgets"). Read after the run.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const T = temporal.api.enums.v1.EventType;

export interface LedgerHistory {
  runs: number;
  events: number;
  workflowTasks: number;
  /** By signal name: reserveSpendAsks (a worker's plan asks together), reserveSpendAsk (an ask alone), settleSpend (settles). */
  signalsReceived: Record<string, number>;
  /** By signal name: spendAnswered (answers), budgetRaised. */
  signalsSent: Record<string, number>;
  /** By activity type: openLedger, verifySpendSenders, readSpendRecord. */
  activities: Record<string, number>;
}

const bump = (m: Record<string, number>, k: string | null | undefined) => {
  if (k) m[k] = (m[k] ?? 0) + 1;
};

/** One run's counts, and the run it continued from, if any (pure). */
export function countLedgerRun(events: readonly HistoryEvent[]): LedgerHistory & { previousRunId?: string } {
  const out: LedgerHistory = {
    runs: 1,
    events: events.length,
    workflowTasks: 0,
    signalsReceived: {},
    signalsSent: {},
    activities: {},
  };
  for (const e of events) {
    if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) out.workflowTasks++;
    bump(out.signalsReceived, e.workflowExecutionSignaledEventAttributes?.signalName);
    bump(out.signalsSent, e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName);
    bump(out.activities, e.activityTaskScheduledEventAttributes?.activityType?.name);
  }
  const previous = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
  return { ...out, ...(previous ? { previousRunId: previous } : {}) };
}

const addCounts = (a: Record<string, number>, b: Record<string, number>) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};

/** Two ledgers' (or runs') counts, summed (pure). */
export function addLedgerHistory(a: LedgerHistory, b: LedgerHistory): LedgerHistory {
  return {
    runs: a.runs + b.runs,
    events: a.events + b.events,
    workflowTasks: a.workflowTasks + b.workflowTasks,
    signalsReceived: addCounts(a.signalsReceived, b.signalsReceived),
    signalsSent: addCounts(a.signalsSent, b.signalsSent),
    activities: addCounts(a.activities, b.activities),
  };
}

export const EMPTY_LEDGER_HISTORY: LedgerHistory = {
  runs: 0,
  events: 0,
  workflowTasks: 0,
  signalsReceived: {},
  signalsSent: {},
  activities: {},
};

/** A ledger's runs from its latest back to its first (each names the run it continued from); undefined: no such ledger. */
export async function ledgerHistory(
  client: Client,
  ledgerId: string,
  maxRuns = 100,
): Promise<LedgerHistory | undefined> {
  let total = EMPTY_LEDGER_HISTORY;
  let runId: string | undefined;
  try {
    runId = (await client.workflow.getHandle(ledgerId).describe()).runId;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  while (runId && total.runs < maxRuns) {
    const history = await client.workflow.getHandle(ledgerId, runId).fetchHistory();
    const { previousRunId, ...run } = countLedgerRun(history.events ?? []);
    total = addLedgerHistory(total, run);
    runId = previousRunId;
  }
  return total;
}
