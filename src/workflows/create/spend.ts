/**
 * Spend budgets, enforced before the call (docs/tenants.md, "Budgets"). With tenants on, a
 * pipeline reserves its whole plan of paid creates in its tenant's ledger once, before its
 * first create; over budget, the definition's `overBudget` decides: fail now with
 * BudgetExceeded, or wait (`waiting-budget`) until the budget is raised or the period rolls
 * over. Each create attempt then takes one reserved create of its kind and gives it back
 * when provably not made; a create beyond the plan (a resubmit after an ambiguous outcome)
 * reserves one more first. As the pipeline ends it records what it spent in its memo, where
 * its ledger reads it: one ask (made by the definition check) and one answer per pipeline.
 * Reservations belong to the run chain (the workflow id and first run id), so a reused
 * workflow id is a new pipeline that pays and is counted like any other.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  proxyLocalActivities,
  upsertMemo,
} from '@temporalio/workflow';
import type { ReelflowActivities } from '../../activities';
import { PLAN_KEY, SPEND_MEMO, askOf, type CreateCount } from '../../contract/ledger';
import type { VendorTaskKind } from '../../contract/status';
import { MINOR_UNITS_PER_UNIT, type TenantPolicy } from '../../contract/tenancy';
import { FailureType } from '../../failures';
import type { StatusBoard } from '../lib/status/status-board';
import type { SpendBook } from './spend-book';
import type { Behaviour } from '../lib/behaviour';
import { duration } from '../lib/status/summaries';

/** What spending reads of its pipeline: PipelineRuntime gives it (the create desk hands it on, desk.ts). */
export interface SpendRuntime {
  readonly tenantPolicy: TenantPolicy | undefined;
  readonly behaviour: Behaviour;
  readonly board: StatusBoard;
  readonly creates: { readonly spend: SpendBook };
  inTurn<T>(call: () => Promise<T>): Promise<T>;
}

/** The ask is a signal-with-start, idempotent by key: a local activity (one marker, no task round trip). */
const asking = proxyLocalActivities<ReelflowActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '10s' },
});

/** No answer this long (a ledger busy opening, or terminated by hand): ask again, same key. */
const ANSWER_WAIT_MS = 60_000;

const money = (minor: number, currency: string) =>
  `${(minor / MINOR_UNITS_PER_UNIT).toFixed(6).replace(/\.?0+$/, '')} ${currency}`;

const listed = (creates: CreateCount[]) => creates.map((c) => `${c.count} × ${c.kind}`).join(' + ');

/**
 * Reserves the pipeline's plan (every paid create its stages will make, priced as if each
 * were new) before its first create. Nothing when tenants are off or the plan is empty.
 */
export async function reservePlan(rt: SpendRuntime, plan: CreateCount[]): Promise<void> {
  const creates = plan.filter((c) => c.count > 0);
  if (!rt.tenantPolicy || creates.length === 0 || Object.keys(rt.creates.spend.carry.ledgers).length > 0) return;
  await reserve(rt, PLAN_KEY, creates, `its plan (${listed(creates)})`);
}

/** Before a create attempt: one reserved create of its kind, reserving one more when the plan has none left. */
export async function takeCreate(rt: SpendRuntime, step: string, attempt: number, kind: VendorTaskKind) {
  if (!rt.tenantPolicy) return;
  const key = `${step}/${attempt}`;
  if (rt.creates.spend.carry.attempts[key]) return; // taken by this pipeline before it continued as new
  if (!rt.creates.spend.freeLedger(kind)) {
    const extra = `extra-${++rt.creates.spend.carry.extras}`;
    await reserve(rt, extra, [{ kind, count: 1 }], `one more ${kind} create`);
  }
  rt.creates.spend.take(key, rt.creates.spend.freeLedger(kind)!, kind);
}

/** An attempt's outcome: confirmed when a task exists, released when provably not created. */
export function settleCreate(rt: SpendRuntime, step: string, attempt: number, outcome: 'confirm' | 'release') {
  rt.creates.spend.settle(`${step}/${attempt}`, outcome);
}

/** Asks until granted; over budget, fails or waits by policy. */
async function reserve(rt: SpendRuntime, key: string, creates: CreateCount[], what: string): Promise<void> {
  const p = rt.tenantPolicy!;
  for (;;) {
    const seen = rt.creates.spend.wakeCount;
    const { ledger, periodEndMs, answer } = await ask(rt, p, key, creates);
    if (!answer || answer.granted) return rt.creates.spend.granted(ledger, creates);
    if (answer.refused) throw budgetExceeded(`the ledger ${ledger} refused ${what}: ${answer.refused}`);
    const why =
      `tenant ${p.tenant}'s budget (${money(answer.budget ?? 0, p.currency)}, ` +
      `${money(answer.committed, p.currency)} spent or reserved) cannot cover ${what} at ${money(answer.amount, p.currency)}`;
    if (p.overBudget === 'fail') throw budgetExceeded(`${why} (overBudget: fail)`);
    await waitForBudget(rt, seen, periodEndMs - Date.now(), why);
  }
}

/**
 * One ask of the current period's ledger, and its answer. A tenant without a budget is
 * counted, never refused: its ask wants no answer (no workflow task for it). No answer in
 * time: the same key is asked again. Cancelled while waiting, the pipeline ends, and its
 * settle tells the ledger it reserved nothing there.
 */
async function ask(rt: SpendRuntime, p: TenantPolicy, key: string, creates: CreateCount[]) {
  const answer = p.budget !== undefined;
  for (;;) {
    const { asked, n } = rt.creates.spend.takeCheckAsk(key) ?? (await askOnce(rt, p, key, creates));
    rt.creates.spend.granted(asked.ledgerId, []); // asked: settled at the end, whatever the answer
    if (!answer) return { ledger: asked.ledgerId, periodEndMs: asked.periodEndMs, answer: undefined };
    if (await condition(() => rt.creates.spend.answered(key, n) !== undefined, ANSWER_WAIT_MS))
      return { ledger: asked.ledgerId, periodEndMs: asked.periodEndMs, answer: rt.creates.spend.answered(key, n)! };
  }
}

async function askOnce(rt: SpendRuntime, p: TenantPolicy, key: string, creates: CreateCount[]) {
  const n = rt.creates.spend.nextAsk(key);
  const asked = await rt.inTurn(() => asking.askSpend(askOf(p, rt.creates.spend.chain, key, creates, n)));
  return { asked, n };
}

function budgetExceeded(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: FailureType.BudgetExceeded, nonRetryable: true });
}

/** `waiting-budget` until the ledger signals a raise (or a release), or the period ends. */
async function waitForBudget(rt: SpendRuntime, seen: number, untilNextPeriodMs: number, why: string) {
  const ms = Math.max(untilNextPeriodMs, 1_000);
  rt.board.budgetWaits++;
  rt.board.detail = `waiting for budget: ${why}; resumes when it is raised (reelflow budget set) or in ${duration(ms)}`;
  rt.board.refresh();
  try {
    await condition(() => rt.creates.spend.wakeCount !== seen, ms);
  } finally {
    rt.board.budgetWaits--;
    rt.board.detail = undefined;
    rt.board.refresh();
  }
}

/**
 * The pipeline's last step: it records what it spent per ledger (creates whose outcome it
 * never learned are unresolved) in its memo, where each ledger reads it once the pipeline has
 * closed. Since `spendInCheck` that is all: the ledger lists its tenant's closed pipelines
 * (docs/tenants.md, "Budgets"). Before, it told each ledger so (a local activity).
 */
export async function endSpend(rt: SpendRuntime): Promise<void> {
  const ledgers = Object.keys(rt.creates.spend.carry.ledgers);
  if (ledgers.length === 0 || rt.creates.spend.carry.ended) return;
  rt.creates.spend.carry.ended = true;
  upsertMemo({ [SPEND_MEMO]: rt.creates.spend.record() });
  if (rt.behaviour.spendInCheck) return;
  const hint = { chain: rt.creates.spend.chain };
  // Signal-with-start: a ledger with no open run (terminated by hand) opens again and counts it.
  await CancellationScope.nonCancellable(() =>
    Promise.all(ledgers.map((id) => rt.inTurn(() => asking.settleSpend({ ledgerId: id, hint })))),
  );
}
