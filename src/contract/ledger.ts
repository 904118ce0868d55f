/**
 * The spend ledger (docs/tenants.md, "Budgets"): one `tenantLedger` workflow per tenant and
 * budget period, its messages, and the pure period arithmetic every side shares. Money is
 * integer minor units (MINOR_UNITS_PER_UNIT per currency unit) everywhere.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BudgetPeriod } from './tenancy';
import { TENANT } from './search-attributes';
import type { StageName, VendorTaskKind } from './status';

export const LEDGER_WORKFLOW = 'tenantLedger';
export const LEDGER_ID_PREFIX = 'reelflow-ledger/';

/** `reelflow-ledger/<tenant>/<period>`: one per tenant and period, in the namespace. */
export function ledgerId(tenant: string, period: string): string {
  return `${LEDGER_ID_PREFIX}${tenant}/${period}`;
}

/** The tenant and period of a ledger id, or undefined when it is not one. */
export function parseLedgerId(id: string): { tenant: string; period: string } | undefined {
  if (!id.startsWith(LEDGER_ID_PREFIX)) return undefined;
  const rest = id.slice(LEDGER_ID_PREFIX.length);
  const slash = rest.lastIndexOf('/');
  if (slash <= 0) return undefined;
  return { tenant: rest.slice(0, slash), period: rest.slice(slash + 1) };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The period holding `nowMs` on the tenants' clock: "2026-11-27" (day) or "2026-11" (month). */
export function periodOf(nowMs: number, kind: BudgetPeriod, utcOffsetMinutes: number): string {
  const d = new Date(nowMs + utcOffsetMinutes * 60_000);
  const month = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
  return kind === 'month' ? month : `${month}-${pad(d.getUTCDate())}`;
}

/** Epoch ms at which `period` begins on the tenants' clock. */
export function periodStartMs(period: string, utcOffsetMinutes: number): number {
  const [y, m, d = 1] = period.split('-').map(Number);
  return Date.UTC(y, m - 1, d) - utcOffsetMinutes * 60_000;
}

/** Epoch ms at which the period after `period` begins. */
export function periodEndMs(period: string, utcOffsetMinutes: number): number {
  const [y, m, d] = period.split('-').map(Number);
  const next = d === undefined ? Date.UTC(y, m, 1) : Date.UTC(y, m - 1, d + 1);
  return next - utcOffsetMinutes * 60_000;
}

/** The period before `period` (of the same kind). */
export function previousPeriod(period: string, utcOffsetMinutes: number): string {
  const kind: BudgetPeriod = period.split('-').length === 2 ? 'month' : 'day';
  return periodOf(periodStartMs(period, utcOffsetMinutes) - 1, kind, utcOffsetMinutes);
}

/** What starts a ledger (update-with-start from a worker's reserve, or `reelflow budget set`). */
export interface LedgerInput {
  tenant: string;
  period: string;
  currency: string;
  utcOffsetMinutes: number;
  /** The configured budget per period, minor units; absent: spend is counted, never refused. */
  budget?: number;
  /** Started by a worker from its tenant configuration: only then are metrics labelled with the tenant. */
  configured: boolean;
  carry?: LedgerCarry;
}

/** A reservation still open: reserved (create in flight or ambiguous) or unresolved (its pipeline ended so). */
export interface OpenReservation {
  amount: number;
  kind: VendorTaskKind;
  stage: StageName;
  pipelineId: string;
  state: 'reserved' | 'unresolved';
  since: string;
}

/** Spend and creates of one (stage, kind), minor units. */
export interface SpendTotal {
  amount: number;
  count: number;
}

/** What continue-as-new carries: totals, open reservations, and settled keys for idempotency. */
export interface LedgerCarry {
  budget?: number;
  /** Set by `reelflow budget set` (absent: the configured budget applies). */
  override?: number;
  configured: boolean;
  open: Record<string, OpenReservation>;
  /** Settled keys, oldest first: 'c' confirmed, 'r' released (bounded: MAX_SETTLED_KEYS). */
  settled: Record<string, 'c' | 'r'>;
  /** Confirmed spend by stage, then kind. */
  confirmed: Record<string, Record<string, SpendTotal>>;
  released: number;
  /** Pipelines waiting for budget: signalled when the budget is raised. */
  waiters: string[];
}

/** The start of a ledger for update-with-start (WithStartWorkflowOperation's options): found, or started. */
export function ledgerStartOptions(input: LedgerInput, taskQueue: string) {
  return {
    workflowId: ledgerId(input.tenant, input.period),
    taskQueue,
    args: [input] as [LedgerInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    typedSearchAttributes: [{ key: TENANT, value: input.tenant }],
  };
}

export interface ReserveRequest {
  /** `<pipelineId>/<step>/<attempt>`: a retried or repeated reserve never counts twice. */
  key: string;
  amount: number;
  kind: VendorTaskKind;
  stage: StageName;
  pipelineId: string;
  /** Over budget, the pipeline waits (policy `wait`): the ledger signals it when the budget is raised. */
  wait: boolean;
  /** By signal: which ask of this key the answer is for (a late answer to an earlier ask is ignored). */
  ask?: number;
  /** Would `amount` fit? Answered without reserving (a stage's whole price, policy `fail`). */
  probe?: boolean;
  /** false: counted, not answered (a tenant without a budget, whose reserve cannot be refused). */
  answer?: boolean;
}

/** What a pipeline's reserve sends: how the ledger starts when it is its period's first, and the request. */
export interface ReserveSpendInput {
  ledger: Omit<LedgerInput, 'carry' | 'configured'>;
  request: ReserveRequest;
}

export interface ReserveAnswer {
  granted: boolean;
  /** The budget in force, minor units (absent: none). */
  budget?: number;
  /** Confirmed plus open reservations, this one included when granted. */
  committed: number;
}

export type SettleOutcome = 'confirm' | 'release' | 'unresolved';

export interface SettleMessage {
  key: string;
  outcome: SettleOutcome;
}

/** What `reelflow usage` and `budget show` read. */
export interface LedgerView {
  tenant: string;
  period: string;
  currency: string;
  budget?: number;
  /** The amount `reelflow budget set` gave (it is then `budget`; a new period inherits it). */
  override?: number;
  /** The configured budget, when `budget set` overrode it. */
  configuredBudget?: number;
  /** Confirmed spend, minor units. */
  spent: number;
  /** Reservations of creates in flight or ambiguous, counted against the budget until settled. */
  reserved: number;
  unresolved: { key: string; amount: number; kind: VendorTaskKind; stage: StageName; pipelineId: string }[];
  confirmed: Record<string, Record<string, SpendTotal>>;
  released: number;
  /** budget − spent − reserved − unresolved (absent: no budget). */
  remaining?: number;
}

/** The first way to reserve (pipelines recorded before `ledger-by-signal`): at most 10 in flight per ledger. */
export const reserveUpdate = defineUpdate<ReserveAnswer, [ReserveRequest]>('reserveSpend');
/**
 * Reserve by signal (signal-with-start), answered by `spendAnsweredSignal` to the pipeline:
 * signals have no in-flight limit, and one ledger task takes a whole burst of them.
 */
export const reserveSignal = defineSignal<[ReserveRequest]>('reserveSpendAsk');
export interface SpendAnswer extends ReserveAnswer {
  key: string;
  ask: number;
}
export const spendAnsweredSignal = defineSignal<[SpendAnswer]>('spendAnswered');
export const settleSignal = defineSignal<[SettleMessage]>('settleSpend');
export const setBudgetUpdate = defineUpdate<LedgerView, [{ amount: number }]>('setBudget');
export const ledgerQuery = defineQuery<LedgerView>('ledger');
/** Sent by a ledger to the pipelines waiting for budget when it is raised. */
export const budgetRaisedSignal = defineSignal('budgetRaised');

/** Settled keys kept for idempotency: a reserve is retried within seconds, never thousands of creates later. */
export const MAX_SETTLED_KEYS = 5_000;
