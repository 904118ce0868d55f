/**
 * The budgets scenario (`npm run bench -- --scenario budgets`; pure): the default bench's
 * workload once per tenancy, alternating — none (no tenants file), count (a default tenant
 * with prices, no budget: counted, never answered) and budget (the same with a daily budget
 * sized to the run) — to measure what a budget costs beside no tenants at all
 * (docs/benchmarks.md, "Budgets (--scenario budgets)"; the ledger's messages: docs/tenants.md, "Budgets").
 */
import type { CreateCount } from '../../src/contract/ledger';
import type { VendorTaskKind } from '../../src/contract/status';
import { MAX_AMOUNT_MINOR } from '../../src/contract/tenancy';
import { formatMinorUnits, toMinorUnits } from '../../src/tenants/config';
import type { Workload } from './workload';

export const TENANCIES = ['none', 'count', 'budget'] as const;
export type Tenancy = (typeof TENANCIES)[number];

export interface BudgetsScenario {
  tenancies: Tenancy[];
  /** How many times the tenancies run, in turn (none, count, budget, none, …). */
  rounds: number;
}

export const DEFAULT_BUDGETS_SCENARIO: BudgetsScenario = { tenancies: [...TENANCIES], rounds: 1 };

/** A price for every paid kind, none of them 0, so every create is money (decimal strings, docs/tenants.md). */
export const BENCH_PRICES: Record<VendorTaskKind, string> = {
  review: '0.002',
  assetGroup: '0.001',
  asset: '0.0002',
  generation: '0.35',
  erase: '0.000016', // not the vendor's listed price: a price the file sets, as the chaos run's
};

/**
 * The share of the budget the run's planned creates take. Each pipeline reserves exactly its
 * plan and spends all of it (the bench makes no extra create), so the run consumes this share
 * and no reservation is ever refused (a refusal would stall pipelines: `overBudget: wait`).
 */
export const BUDGET_SHARE = 0.95;

/**
 * One pipeline's plan of paid creates in this workload, as the pipeline reserves it
 * (src/workflows/lib/plan.ts): one review batch (one image), no asset group (the bench's
 * group exists), each asset item, the generation, the erase.
 */
export function plannedCreatesOf(w: Workload): CreateCount[] {
  const has = (s: Workload['stages'][number]) => w.stages.includes(s);
  const plan: CreateCount[] = [];
  if (has('review')) plan.push({ kind: 'review', count: 1 });
  if (has('assets')) plan.push({ kind: 'asset', count: w.assetsPerPipeline });
  if (has('generation')) plan.push({ kind: 'generation', count: 1 });
  if (has('erase')) plan.push({ kind: 'erase', count: 1 });
  return plan;
}

/** What a plan costs at these prices, in minor units. */
export function planMinor(plan: CreateCount[], prices: Record<VendorTaskKind, string>): number {
  return plan.reduce((a, c) => a + c.count * toMinorUnits(prices[c.kind]), 0);
}

export interface BudgetSizing {
  /** Every pipeline's plan, summed: what the run spends (minor units). */
  plannedMinor: number;
  budgetMinor: number;
  /** The budget as the tenants file writes it. */
  amount: string;
  share: number;
}

/** The daily budget the run's planned creates take `share` of (rounded up to a minor unit). */
export function budgetFor(pipelines: number, w: Workload, share = BUDGET_SHARE): BudgetSizing {
  const plannedMinor = pipelines * planMinor(plannedCreatesOf(w), BENCH_PRICES);
  const budgetMinor = Math.min(MAX_AMOUNT_MINOR, Math.ceil(plannedMinor / share));
  return { plannedMinor, budgetMinor, amount: formatMinorUnits(budgetMinor), share };
}

/** One run of the scenario. */
export interface BudgetsRunPlan {
  tenancy: Tenancy;
  round: number;
  /** Names the run's task queue, workflow ids and logs. */
  label: string;
}

/**
 * Round by round, the tenancies in turn, in reverse order every second round (none, budget;
 * budget, none): each run leaves its workflows in the server's database, which later runs
 * work beside, so a fixed order would always give the later tenancy the larger database.
 * Labels carry the round when there is more than one.
 */
export function budgetsRunPlans(s: BudgetsScenario): BudgetsRunPlan[] {
  const plans: BudgetsRunPlan[] = [];
  for (let round = 1; round <= s.rounds; round++) {
    const order = round % 2 === 1 ? s.tenancies : [...s.tenancies].reverse();
    for (const tenancy of order) plans.push({ tenancy, round, label: s.rounds > 1 ? `${tenancy}-r${round}` : tenancy });
  }
  return plans;
}

/**
 * The worker's tenants file for a run, or none. `defaultTenant` takes every pipeline (they
 * name no tenant); the tenant is the run's own, since a ledger lives on the task queue that
 * first used it (docs/tenants.md, "Budgets") and each run has its own queue.
 */
export function budgetsTenantsFile(tenancy: Tenancy, tenant: string, budget?: BudgetSizing): object | undefined {
  if (tenancy === 'none') return undefined;
  const limits = tenancy === 'budget' && budget ? { budget: { period: 'day', amount: budget.amount } } : {};
  return { prices: BENCH_PRICES, defaultTenant: tenant, tenants: { [tenant]: limits } };
}
