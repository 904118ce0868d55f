/**
 * Spend budgets, enforced before the call (docs/tenants.md, "Budgets"). With tenants on,
 * each paid create attempt first reserves its price in the tenant's ledger for the period
 * (tenant-ledger.ts); its outcome then confirms the reservation (a task exists), releases it
 * (provably not created) or leaves it open (ambiguous, until reconciled; unresolved if the
 * pipeline ends so). Over budget, the definition's `overBudget` decides: fail now with
 * BudgetExceeded, or wait (`waiting-budget`) until the budget is raised or the period rolls over.
 * Runs without a tenant policy never get here: their histories replay unchanged.
 */
import {
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { ReelflowActivities } from '../../activities';
import {
  budgetRaisedSignal,
  ledgerId,
  periodEndMs,
  periodOf,
  settleSignal,
  type SettleOutcome,
} from '../../contract/ledger';
import type { StageName, VendorTaskKind } from '../../contract/messages';
import { MINOR_UNITS_PER_UNIT } from '../../contract/tenancy';
import { FailureType } from '../../failures';
import type { PipelineRuntime } from './pipeline-runtime';
import { duration } from './summaries';

/** Idempotent by key: retried until the ledger answers (a busy ledger is not a budget refusal). */
const LEDGER_CALL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 30 },
};

const keyOf = (rt: PipelineRuntime, step: string, attempt: number) => `${rt.status.pipelineId}/${step}/${attempt}`;

const money = (minor: number, currency: string) =>
  `${(minor / MINOR_UNITS_PER_UNIT).toFixed(6).replace(/\.?0+$/, '')} ${currency}`;

/** Reserves the price of (step, attempt) before its create; over budget, fails or waits by policy. */
export async function reserveSpend(rt: PipelineRuntime, step: string, attempt: number, kind: VendorTaskKind) {
  const p = rt.tenantPolicy!;
  const key = keyOf(rt, step, attempt);
  if (rt.reservations[key] !== undefined) return; // reserved by this pipeline before it continued as new
  const stage = rt.status.stage as StageName;
  const amount = p.prices[kind];
  const offset = p.utcOffsetMinutes;
  for (;;) {
    const now = Date.now();
    const period = periodOf(now, p.budget?.period ?? 'month', offset);
    const seen = rt.budgetWakes;
    const ledgerCalls = proxyActivities<ReelflowActivities>({ ...LEDGER_CALL_OPTIONS, ...rt.taskOptions });
    const answer = await ledgerCalls.reserveSpend({
      ledger: {
        tenant: p.tenant,
        period,
        currency: p.currency,
        utcOffsetMinutes: offset,
        ...(p.budget ? { budget: p.budget.amount } : {}),
      },
      request: { key, amount, kind, stage, pipelineId: rt.status.pipelineId, wait: p.overBudget === 'wait' },
    });
    if (answer.granted) {
      rt.reservations[key] = ledgerId(p.tenant, period);
      return;
    }
    const why =
      `tenant ${p.tenant}'s budget for ${period} (${money(answer.budget ?? 0, p.currency)}, ` +
      `${money(answer.committed, p.currency)} spent or reserved) cannot cover ${kind} at ${money(amount, p.currency)}`;
    if (p.overBudget === 'fail') throw budgetExceeded(`${why} (overBudget: fail)`);
    await waitForBudget(rt, seen, periodEndMs(period, offset) - now, why);
  }
}

function budgetExceeded(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: FailureType.BudgetExceeded, nonRetryable: true });
}

/** `waiting-budget` until the ledger signals a raise (or a release), or the period ends. */
async function waitForBudget(rt: PipelineRuntime, seen: number, untilNextPeriodMs: number, why: string) {
  setHandler(budgetRaisedSignal, () => {
    rt.budgetWakes++;
  });
  rt.budgetWaits++;
  rt.detail = `waiting for budget: ${why}; resumes when it is raised (reelflow budget set) or in ${duration(untilNextPeriodMs)}`;
  rt.refresh();
  try {
    await condition(() => rt.budgetWakes !== seen, untilNextPeriodMs);
  } finally {
    rt.budgetWaits--;
    rt.detail = undefined;
    rt.refresh();
  }
}

/** Confirms or releases (step, attempt)'s reservation by signal; nothing when it has none. */
export function settleSpend(rt: PipelineRuntime, step: string, attempt: number, outcome: SettleOutcome): void {
  const key = keyOf(rt, step, attempt);
  const ledger = rt.reservations[key];
  if (ledger === undefined) return;
  delete rt.reservations[key];
  rt.settling.push(
    getExternalWorkflowHandle(ledger)
      .signal(settleSignal, { key, outcome })
      .catch(() => undefined),
  );
}

/** The pipeline ends: what is still reserved is reported unresolved, and every settle is sent. */
export async function endSpend(rt: PipelineRuntime): Promise<void> {
  for (const [key, ledger] of Object.entries(rt.reservations)) {
    rt.settling.push(
      getExternalWorkflowHandle(ledger)
        .signal(settleSignal, { key, outcome: 'unresolved' })
        .catch(() => undefined),
    );
    delete rt.reservations[key];
  }
  if (rt.settling.length > 0) await Promise.all(rt.settling.splice(0));
}
