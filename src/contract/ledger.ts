/**
 * The spend ledger (docs/tenants.md, "Budgets"): one `tenantLedger` workflow per tenant and
 * budget period, its messages, and the pure period arithmetic every side shares. Money is
 * integer minor units (MINOR_UNITS_PER_UNIT per currency unit) everywhere.
 *
 * Nothing a ledger receives is trusted (docs/security.md, "Ledger messages"): it starts
 * with no input (its tenant and period are its own workflow id), reads its terms from the
 * worker's tenants file and its state from its own earlier runs, prices every reservation
 * itself, and checks each sender against the server before it counts a message.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { PRIORITY_KEYS, type BudgetPeriod, type TenantPolicy } from './tenancy';
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

/** The kind of a period by its spelling: "2026-11" is a month, "2026-11-27" a day; else undefined. */
export function periodKindOf(period: string): BudgetPeriod | undefined {
  if (/^\d{4}-\d{2}$/.test(period)) return 'month';
  return /^\d{4}-\d{2}-\d{2}$/.test(period) ? 'day' : undefined;
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

// Which stage each paid kind belongs to: the stage table's (docs/architecture.md, "How to add a stage").
export { STAGE_OF_KIND } from './stages';

/** A pipeline's run chain: its id and the first run's id, the same in every run continue-as-new makes. */
export interface RunChain {
  pipelineId: string;
  firstRunId: string;
}

/** `<pipelineId>/<firstRunId>`: a reused workflow id is another chain, which pays and is counted anew. */
export function chainKey(c: RunChain): string {
  return `${c.pipelineId}/${c.firstRunId}`;
}

/** Paid creates of one kind, as a pipeline plans or reports them. */
export interface CreateCount {
  kind: VendorTaskKind;
  count: number;
}

/** The most creates one message may name for a kind: far above any definition's (its lists are bounded). */
export const MAX_CREATES_PER_KIND = 100_000;

/**
 * What the worker's tenants file says of a ledger's tenant, read by the ledger when it opens
 * (never from its input). `known: false`: the file has no such tenant, or not this period kind.
 */
export interface LedgerTerms {
  known: boolean;
  currency: string;
  utcOffsetMinutes: number;
  /** The configured budget per period, minor units; absent: spend is counted, never refused. */
  budget?: number;
  prices: Record<VendorTaskKind, number>;
}

/** One chain's reservation in a ledger: creates by kind, each at the price pinned when first reserved. */
export interface ChainReservation {
  pipelineId: string;
  /** The reserve keys already counted ('plan', 'extra-1', …): an ask repeated counts once. */
  keys: string[];
  creates: Partial<Record<VendorTaskKind, { count: number; price: number }>>;
  since: string;
}

/** A chain's creates whose outcome its pipeline never learned (it ended so): counted, neither spent nor dropped. */
export interface UnresolvedSpend {
  key: string;
  pipelineId: string;
  kind: VendorTaskKind;
  stage: StageName;
  count: number;
  amount: number;
}

/** Spend and creates of one (stage, kind), minor units. */
export interface SpendTotal {
  amount: number;
  count: number;
}

/** A ledger's state: what its runs hand on, each run reading it from the run before (never from input). */
export interface LedgerState {
  /** Set by `reelflow budget set` (absent: the configured budget applies). */
  override?: number;
  /** Verified chains with their open reservations. */
  chains: Record<string, ChainReservation>;
  /** Chains settled, oldest first (bounded: MAX_SETTLED_KEYS): a repeated or replayed settle counts nothing. */
  settled: Record<string, 1>;
  /** Confirmed spend by stage, then kind. */
  confirmed: Record<string, Record<string, SpendTotal>>;
  unresolved: UnresolvedSpend[];
  /** Reserved creates given back unused. */
  released: number;
  /** Pipelines waiting for budget: signalled when the budget is raised or a reservation released. */
  waiters: string[];
  /** Messages dropped: malformed, or from a sender that is not a running pipeline of this tenant and chain. */
  refused: number;
}

/** What a ledger run answers its successor (and `reelflow usage`): its state once opened, and messages not yet handled. */
export interface LedgerSnapshot {
  state?: LedgerState;
  terms?: LedgerTerms;
  inbox: LedgerMessage[];
}

export type LedgerMessage = { reserve: unknown } | { settle: unknown };

/** What the ledger's opening activity returns: its terms, and the state its earlier runs left. */
export interface LedgerOpening {
  terms: LedgerTerms;
  state?: LedgerState;
  inbox: LedgerMessage[];
  /** The previous period's `budget set` amount, inherited when this period has no state yet. */
  inheritedOverride?: number;
  /** The worker's codec refuses plaintext: a message that arrived in plaintext is refused (docs/encryption.md). */
  codecStrict?: true;
}

/**
 * The ledger's priority key: 1, ahead of every pipeline's tasks on the queue it shares with
 * them, so a backlog of pipelines does not hold up the answers they wait for (docs/tenants.md,
 * "Budgets"). Its activities inherit it; a continued run keeps it (the server copies it).
 */
export const LEDGER_PRIORITY = { priorityKey: PRIORITY_KEYS.interactive };

/** The start of a ledger (signal- or update-with-start): found, or started with no input. */
export function ledgerStartOptions(tenant: string, period: string, taskQueue: string) {
  return {
    workflowId: ledgerId(tenant, period),
    taskQueue,
    args: [] as [],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    typedSearchAttributes: [{ key: TENANT, value: tenant }],
    priority: LEDGER_PRIORITY,
  };
}

export interface ReserveRequest {
  chain: RunChain;
  /** Unique in the chain ('plan', 'extra-1', …): a retried or repeated ask never counts twice. */
  key: string;
  creates: CreateCount[];
  /** Over budget, the pipeline waits (policy `wait`): the ledger signals it when the budget is raised. */
  wait: boolean;
  /** false: counted, never refused nor answered (a tenant without a budget). */
  answer: boolean;
  /** Which ask of this key the answer is for (a late answer to an earlier ask is ignored). */
  ask: number;
  /**
   * The pipeline reads the answer itself (`spendAnswersQuery`, from its first create activity):
   * the ledger sends no answer signal, so no workflow task of the pipeline's waits on it.
   */
  pull?: boolean;
}

/** The key of a pipeline's plan reservation: the ask its definition check may make for it. */
export const PLAN_KEY = 'plan';

/**
 * What an ask sends, from the pipeline's policy: the pipeline's own asks (spend.ts) and the
 * one its definition check makes for its plan (src/activities/definition.ts) alike.
 */
export function askOf(
  p: TenantPolicy,
  chain: RunChain,
  key: string,
  creates: CreateCount[],
  ask: number,
  pull?: boolean,
) {
  const request: ReserveRequest = {
    chain,
    key,
    creates,
    wait: p.overBudget === 'wait',
    answer: p.budget !== undefined,
    ask,
    ...(pull ? { pull: true } : {}),
  };
  return { tenant: p.tenant, periodKind: p.budget?.period ?? 'month', utcOffsetMinutes: p.utcOffsetMinutes, request };
}

/** The ledger's answer to a reserve, by signal to the pipeline. */
export interface SpendAnswer {
  key: string;
  ask: number;
  granted: boolean;
  /** The budget in force, minor units (absent: none). */
  budget?: number;
  /** Spent, reserved and unresolved, this reservation included when granted. */
  committed: number;
  /** What the reservation costs at the configured prices. */
  amount: number;
  /** Refused by a rule, not by the budget (a malformed request, a settled chain): why. */
  refused?: string;
  /**
   * The chain asked for: a pipeline takes only an answer for its own chain (its workflow id
   * may hold a newer pipeline by the time the answer arrives). Absent from 0.2.0's ledgers.
   */
  firstRunId?: string;
}

/** An ask whose answer its pipeline reads by `spendAnswersQuery` (ReserveRequest.pull). */
export interface PulledAsk {
  ledgerId: string;
  chain: RunChain;
  key: string;
  ask: number;
}

/** A pulled ask's answer: granted (its key is reserved), a refusal, or null (not answered yet). */
export type PulledAnswer = Pick<SpendAnswer, 'granted'> | SpendAnswer | null;

/** What a ledger sends a pipeline through its `tellSpenders` activity: an answer, or (none) a wake-up. */
export interface SpenderNote {
  pipelineId: string;
  answer?: SpendAnswer;
}

/** A settle is a hint: the ledger reads what was spent from the ended pipeline itself (SPEND_MEMO). */
export interface SettleHint {
  chain: RunChain;
}

/** The memo key where a pipeline records, as it ends, what it spent in each ledger. */
export const SPEND_MEMO = 'reelflowSpend';

/** The pipeline's record under SPEND_MEMO: per ledger id, creates confirmed and creates left unresolved. */
export interface SpendRecord {
  firstRunId: string;
  ledgers: Record<
    string,
    { used: Partial<Record<VendorTaskKind, number>>; unresolved: Partial<Record<VendorTaskKind, number>> }
  >;
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
  /** Reservations of pipelines still running, counted against the budget until settled. */
  reserved: number;
  unresolved: UnresolvedSpend[];
  confirmed: Record<string, Record<string, SpendTotal>>;
  released: number;
  refused: number;
  /** budget − spent − reserved − unresolved (absent: no budget). */
  remaining?: number;
}

export const reserveSignal = defineSignal<[ReserveRequest]>('reserveSpendAsk');
/**
 * The plan asks a worker's definition checks made to one ledger within a tenth of a second,
 * together (src/activities/ask-batch.ts); each is handled as a `reserveSignal` of its own would be.
 */
export const reserveAsksSignal = defineSignal<[ReserveRequest[]]>('reserveSpendAsks');
/** Whether this ledger run takes `reserveAsksSignal` (runs started before it was added do not). */
export const takesAskBatchesQuery = defineQuery<boolean>('takesAskBatches');
/** Asks per `reserveAsksSignal`: a signal stays well under the server's payload limit; the ledger drops (and counts) more. */
export const MAX_ASKS_PER_SIGNAL = 200;
export const spendAnsweredSignal = defineSignal<[SpendAnswer]>('spendAnswered');
export const settleSignal = defineSignal<[SettleHint]>('settleSpend');
export const setBudgetUpdate = defineUpdate<LedgerView, [{ amount: number }]>('setBudget');
export const ledgerQuery = defineQuery<LedgerView>('ledger');
/** The answers to pulled asks (ReserveRequest.pull), in the order asked: read by a create activity. */
export const spendAnswersQuery = defineQuery<PulledAnswer[], [Omit<PulledAsk, 'ledgerId'>[]]>('spendAnswers');
/** The state a later run of the same ledger id (or `reelflow usage`) reads. */
export const ledgerSnapshotQuery = defineQuery<LedgerSnapshot>('ledgerSnapshot');
/** Sent by a ledger to the pipelines waiting for budget when it is raised. */
export const budgetRaisedSignal = defineSignal('budgetRaised');

/** Settled chains kept for idempotency: a settle is repeated within seconds, never thousands of pipelines later. */
export const MAX_SETTLED_KEYS = 5_000;

/**
 * How often a ledger holding reservations looks for pipelines that closed without settling
 * (terminated, or their settle lost), and how long such a pipeline must have been closed:
 * their reservations are settled from what the server shows (docs/tenants.md, "Budgets").
 */
export const LEDGER_SWEEP_MS = 30_000;
/** At most this many chains read per sweep: the activity's input stays small. */
export const LEDGER_SWEEP_BATCH = 200;
