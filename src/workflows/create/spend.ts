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
import {
  PLAN_KEY,
  SPEND_MEMO,
  askOf,
  type CreateCount,
  type PulledAnswer,
  type PulledAsk,
  type SpendAnswer,
} from '../../contract/ledger';
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
  if (pullPlan(rt, creates)) return;
  await reserve(rt, PLAN_KEY, creates, `its plan (${listed(creates)})`);
}

/**
 * The check asked for the plan with `pull` (behaviour `spendInCheck`), so no answer signal
 * comes. The plan is held as reserved, and each create reads the grant before its vendor call
 * (src/activities/grant-pull.ts) until one finds it granted; one that finds it not granted
 * sent nothing, and `regrant` takes over.
 */
function pullPlan(rt: SpendRuntime, creates: CreateCount[]): boolean {
  if (rt.tenantPolicy!.budget === undefined) return false;
  const book = rt.creates.spend;
  const checked = book.takeCheckAsk(PLAN_KEY);
  if (!checked) return false;
  const { ledgerId, periodEndMs } = checked.asked;
  book.granted(ledgerId, creates);
  book.carry.pull = { ledgerId, chain: book.chain, key: PLAN_KEY, ask: checked.n, creates, periodEndMs };
  book.pullWakes = book.wakeCount;
  return true;
}

/**
 * Before a create attempt: one reserved create of its kind, reserving one more when the plan
 * has none left. Returns the plan's ask for the create to read while its grant is unread.
 */
export async function takeCreate(
  rt: SpendRuntime,
  step: string,
  attempt: number,
  kind: VendorTaskKind,
): Promise<PulledAsk | undefined> {
  if (!rt.tenantPolicy) return undefined;
  const key = `${step}/${attempt}`;
  // Taken by this pipeline before it continued as new: no second take.
  if (!rt.creates.spend.carry.attempts[key]) {
    if (!rt.creates.spend.freeLedger(kind)) {
      const extra = `extra-${++rt.creates.spend.carry.extras}`;
      await reserve(rt, extra, [{ kind, count: 1 }], `one more ${kind} create`);
    }
    rt.creates.spend.take(key, rt.creates.spend.freeLedger(kind)!, kind);
  }
  const pull = rt.creates.spend.carry.pull;
  return pull && { ledgerId: pull.ledgerId, chain: pull.chain, key: pull.key, ask: pull.ask };
}

/** A create activity came back with a result: it read the plan granted. */
export function grantRead(rt: SpendRuntime): void {
  delete rt.creates.spend.carry.pull;
}

/**
 * A create found the plan not granted (src/activities/grant-pull.ts) and sent nothing: the
 * plan is asked for again by signal, and a refusal goes to the budget policy. Creates that
 * find it so together share one regrant.
 */
export function regrant(rt: SpendRuntime, answer: PulledAnswer): Promise<void> {
  const book = rt.creates.spend;
  book.regranting ??= regrantPlan(rt, answer).finally(() => (book.regranting = undefined));
  return book.regranting;
}

async function regrantPlan(rt: SpendRuntime, answer: PulledAnswer): Promise<void> {
  const book = rt.creates.spend;
  const pull = book.carry.pull;
  if (!pull) return; // another create read it granted meanwhile
  delete book.carry.pull;
  book.granted(pull.ledgerId, pull.creates, -1);
  const refusal = answer && isRefusal(answer) ? answer : undefined;
  const first = refusal && { ledger: pull.ledgerId, periodEndMs: pull.periodEndMs, answer: refusal };
  await reserve(rt, PLAN_KEY, pull.creates, `its plan (${listed(pull.creates)})`, first, book.pullWakes);
}

/** A refusal as the ledger writes it (the activity's detail is read as data, checked). */
function isRefusal(a: object): a is SpendAnswer {
  const r = a as Partial<SpendAnswer>;
  return r.granted === false && typeof r.committed === 'number' && typeof r.amount === 'number';
}

/** An attempt's outcome: confirmed when a task exists, released when provably not created. */
export function settleCreate(rt: SpendRuntime, step: string, attempt: number, outcome: 'confirm' | 'release') {
  rt.creates.spend.settle(`${step}/${attempt}`, outcome);
}

/** An answer already in hand (a pulled refusal): the first round of `reserve` takes it instead of asking. */
type Asked = { ledger: string; periodEndMs: number; answer: SpendAnswer | undefined };

/** Asks until granted; over budget, fails or waits by policy. */
async function reserve(
  rt: SpendRuntime,
  key: string,
  creates: CreateCount[],
  what: string,
  first?: Asked,
  firstSeen?: number,
): Promise<void> {
  const p = rt.tenantPolicy!;
  for (;;) {
    const seen = (first && firstSeen) ?? rt.creates.spend.wakeCount;
    const { ledger, periodEndMs, answer } = first ?? (await ask(rt, p, key, creates));
    first = undefined;
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
