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
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
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
  spendAnsweredSignal,
  type ReserveAnswer,
  type ReserveRequest,
  type ReserveSpendInput,
  type SettleOutcome,
  type SpendAnswer,
} from '../../contract/ledger';
import type { StageName, VendorTaskKind } from '../../contract/messages';
import { MINOR_UNITS_PER_UNIT, type TenantPolicy } from '../../contract/tenancy';
import { FailureType } from '../../failures';
import type { PipelineRuntime } from './pipeline-runtime';
import { duration } from './summaries';

/** Idempotent by key: retried until the ledger answers (a busy ledger is not a budget refusal). */
const LEDGER_CALL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 30 },
};

/**
 * Reserves go by signal and are answered by signal (no in-flight limit at the ledger, which
 * Updates have); runs recorded before reserved by update-with-start.
 */
export const LEDGER_BY_SIGNAL_PATCH = 'ledger-by-signal';

/** The ask is a signal-with-start, idempotent by key: a local activity (one marker, no task round trip). */
const askingLedger = proxyLocalActivities<ReelflowActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '10s' },
});

/** A tenant without a budget is counted, never refused: its reserves need no answer. */
export const LEDGER_COUNT_ONLY_PATCH = 'ledger-count-only';

/** Settles went by a local activity's signal in runs recorded with this patch alone (sendSettle). */
export const LEDGER_SETTLE_LOCAL_PATCH = 'ledger-settle-local';
/** Settles are the workflow's own signals again (sendSettle). */
export const LEDGER_SETTLE_SIGNAL_PATCH = 'ledger-settle-signal';

/** Policy `fail` checks a stage's whole price before its first create (checkStageBudget). */
export const STAGE_BUDGET_CHECK_PATCH = 'budget-stage-check';

/** No answer this long (a ledger terminated by hand, its answer lost): ask again, same key. */
const ANSWER_WAIT_MS = 60_000;

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
    const input = ledgerAsk(rt, period, { key, amount, kind, stage });
    if (!p.budget && patched(LEDGER_COUNT_ONLY_PATCH)) {
      // No budget, no refusal: counted without waiting for an answer (no workflow task for it).
      await rt.inTurn(() => askingLedger.askSpend({ ...input, request: { ...input.request, answer: false } }));
      rt.reservations[key] = ledgerId(p.tenant, period);
      return;
    }
    const answer = patched(LEDGER_BY_SIGNAL_PATCH)
      ? await askLedger(rt, input)
      : await proxyActivities<ReelflowActivities>({ ...LEDGER_CALL_OPTIONS, ...rt.taskOptions }).reserveSpend(input);
    if (answer.granted) {
      rt.reservations[key] = ledgerId(p.tenant, period);
      return;
    }
    const why = refusal(p, period, answer, `${kind} at ${money(amount, p.currency)}`);
    if (p.overBudget === 'fail') throw budgetExceeded(`${why} (overBudget: fail)`);
    await waitForBudget(rt, seen, periodEndMs(period, offset) - now, why);
  }
}

/**
 * Policy `fail`, before a stage of several paid creates (review batches, asset items): its
 * whole price must fit, or the stage fails with BudgetExceeded before any vendor call. The
 * ledger answers without reserving; each create still reserves its own price, so a tenant's
 * other pipelines spending meanwhile can still stop the stage at a later create.
 */
export async function checkStageBudget(rt: PipelineRuntime, creates: { kind: VendorTaskKind; count: number }[]) {
  const p = rt.tenantPolicy;
  if (!p?.ledger || p.overBudget !== 'fail' || !p.budget) return;
  const total = creates.reduce((sum, c) => sum + c.count, 0);
  if (total < 2 || !patched(STAGE_BUDGET_CHECK_PATCH)) return;
  const amount = creates.reduce((sum, c) => sum + c.count * p.prices[c.kind], 0);
  const stage = rt.status.stage as StageName;
  const period = periodOf(Date.now(), p.budget.period, p.utcOffsetMinutes);
  const key = `${keyOf(rt, stage, 0)}/check`;
  const answer = await askLedger(rt, ledgerAsk(rt, period, { key, amount, kind: creates[0].kind, stage, probe: true }));
  if (answer.granted) return;
  const what = creates.map((c) => `${c.count} × ${c.kind}`).join(' + ');
  throw budgetExceeded(
    `${refusal(p, period, answer, `its ${stage} stage (${what}, ${money(amount, p.currency)})`)} (overBudget: fail)`,
  );
}

function ledgerAsk(
  rt: PipelineRuntime,
  period: string,
  r: Pick<ReserveRequest, 'key' | 'amount' | 'kind' | 'stage' | 'probe'>,
): ReserveSpendInput {
  const p = rt.tenantPolicy!;
  return {
    ledger: {
      tenant: p.tenant,
      period,
      currency: p.currency,
      utcOffsetMinutes: p.utcOffsetMinutes,
      ...(p.budget ? { budget: p.budget.amount } : {}),
    },
    request: { ...r, pipelineId: rt.status.pipelineId, wait: p.overBudget === 'wait' && !r.probe },
  };
}

function refusal(p: TenantPolicy, period: string, answer: ReserveAnswer, what: string): string {
  return (
    `tenant ${p.tenant}'s budget for ${period} (${money(answer.budget ?? 0, p.currency)}, ` +
    `${money(answer.committed, p.currency)} spent or reserved) cannot cover ${what}`
  );
}

/**
 * Asks the tenant's ledger and waits for its answer, asking again (same key) if none comes.
 * Cancelled while waiting, it releases the key: a grant this pipeline will never use must
 * not stay reserved (an ask that arrives after the release counts nothing).
 */
async function askLedger(rt: PipelineRuntime, input: ReserveSpendInput): Promise<ReserveAnswer> {
  const { key } = input.request;
  setHandler(spendAnsweredSignal, (a: SpendAnswer) => {
    if (rt.spendAsks[a.key] === a.ask) rt.spendAnswers[a.key] = a;
  });
  const ledger = ledgerId(input.ledger.tenant, input.ledger.period);
  try {
    for (;;) {
      const ask = (rt.spendAsks[key] ?? 0) + 1;
      rt.spendAsks[key] = ask;
      delete rt.spendAnswers[key];
      await rt.inTurn(() => askingLedger.askSpend({ ...input, request: { ...input.request, ask } }));
      if (await condition(() => rt.spendAnswers[key] !== undefined, ANSWER_WAIT_MS)) return rt.spendAnswers[key];
    }
  } catch (err) {
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => sendSettle(ledger, key, 'release'));
    throw err;
  } finally {
    delete rt.spendAsks[key];
    delete rt.spendAnswers[key];
  }
}

/**
 * A settle is the workflow's own signal to the ledger. Runs recorded with `ledger-settle-local`
 * (and not `ledger-settle-signal`) sent it from a local activity that ran beside the pipeline's
 * next commands; a worker killed meanwhile could replay them in another order (a
 * nondeterminism error in tenant-gate.e2e), so new runs signal again.
 */
const sendSettle = (ledger: string, key: string, outcome: SettleOutcome): Promise<void> =>
  !patched(LEDGER_SETTLE_SIGNAL_PATCH) && patched(LEDGER_SETTLE_LOCAL_PATCH)
    ? CancellationScope.nonCancellable(() => askingLedger.settleSpend({ ledgerId: ledger, message: { key, outcome } }))
    : getExternalWorkflowHandle(ledger)
        .signal(settleSignal, { key, outcome })
        .catch(() => undefined);

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
  rt.settling.push(sendSettle(ledger, key, outcome));
}

/** The pipeline ends: what is still reserved is reported unresolved, and every settle is sent. */
export async function endSpend(rt: PipelineRuntime): Promise<void> {
  for (const [key, ledger] of Object.entries(rt.reservations)) {
    rt.settling.push(sendSettle(ledger, key, 'unresolved'));
    delete rt.reservations[key];
  }
  if (rt.settling.length > 0) await Promise.all(rt.settling.splice(0));
}
