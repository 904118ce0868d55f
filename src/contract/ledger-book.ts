/**
 * The state of one tenant's ledger for one period (docs/tenants.md, "Budgets"), as plain
 * data and pure functions: tenantLedger (src/workflows/tenant-ledger.ts) holds one and answers from it.
 * A reservation belongs to a run chain (a pipeline's id and first run id) and lists creates
 * by kind, each priced here at the configured price and pinned there, so a price change
 * cannot strand it. A chain is settled once, from what its ended pipeline recorded.
 * Every function takes unchecked input and answers; none throws (no poison pill).
 */
import {
  MAX_CREATES_PER_KIND,
  MAX_SETTLED_KEYS,
  STAGE_OF_KIND,
  chainKey,
  type ChainReservation,
  type CreateCount,
  type LedgerState,
  type LedgerTerms,
  type LedgerView,
  type ReserveRequest,
  type RunChain,
  type SpendAnswer,
  type SpendRecord,
} from './ledger';
import type { VendorTaskKind } from './status';

const KINDS = Object.keys(STAGE_OF_KIND) as VendorTaskKind[];
const ID = /^[\w.:@/=+-]{1,400}$/;

export function emptyState(override?: number): LedgerState {
  return {
    ...(override !== undefined ? { override } : {}),
    chains: {},
    settled: {},
    confirmed: {},
    unresolved: [],
    released: 0,
    waiters: [],
    refused: 0,
  };
}

/** The budget in force: `budget set`'s, else the configured one. */
export function budgetOf(s: LedgerState, t: LedgerTerms): number | undefined {
  return s.override ?? t.budget;
}

export function spentOf(s: LedgerState): number {
  let sum = 0;
  for (const byKind of Object.values(s.confirmed)) for (const t of Object.values(byKind)) sum += t.amount;
  return sum;
}

export function amountOf(r: ChainReservation): number {
  return Object.values(r.creates).reduce((sum, c) => sum + c.count * c.price, 0);
}

export function reservedOf(s: LedgerState): number {
  return Object.values(s.chains).reduce((sum, r) => sum + amountOf(r), 0);
}

export function unresolvedOf(s: LedgerState): number {
  return s.unresolved.reduce((sum, u) => sum + u.amount, 0);
}

export function committedOf(s: LedgerState): number {
  return spentOf(s) + reservedOf(s) + unresolvedOf(s);
}

/** The chain a message names, when it is well formed. */
export function chainOf(m: unknown): RunChain | undefined {
  const c = (m as { chain?: Partial<RunChain> } | null)?.chain;
  if (typeof c?.pipelineId !== 'string' || typeof c.firstRunId !== 'string') return undefined;
  if (!ID.test(c.pipelineId) || !ID.test(c.firstRunId)) return undefined;
  return { pipelineId: c.pipelineId, firstRunId: c.firstRunId };
}

/** A reserve request checked field by field: the request, or why it is refused (naming the field). */
export function checkReserve(m: unknown): ReserveRequest | { refused: string } {
  const r = m as Partial<ReserveRequest>;
  const chain = chainOf(m);
  if (!chain) return { refused: 'chain: must name a pipeline id and its first run id' };
  if (typeof r.key !== 'string' || !/^[\w-]{1,40}$/.test(r.key)) return { refused: 'key: must be a short name' };
  if (!Number.isSafeInteger(r.ask)) return { refused: 'ask: must be a whole number' };
  if (!Array.isArray(r.creates) || r.creates.length === 0 || r.creates.length > KINDS.length)
    return { refused: 'creates: must list one to five kinds' };
  const seen = new Set<string>();
  for (const [i, c] of (r.creates as unknown[]).entries()) {
    const { kind, count } = (c ?? {}) as Partial<CreateCount>;
    if (!KINDS.includes(kind as VendorTaskKind) || seen.has(kind!))
      return { refused: `creates[${i}].kind: must be a paid kind, each listed once` };
    if (!Number.isSafeInteger(count) || count! < 1 || count! > MAX_CREATES_PER_KIND)
      return { refused: `creates[${i}].count: must be a whole number from 1 to ${MAX_CREATES_PER_KIND}` };
    seen.add(kind!);
  }
  return {
    chain,
    key: r.key,
    ask: r.ask!,
    wait: r.wait === true,
    answer: r.answer !== false,
    creates: r.creates.map(({ kind, count }) => ({ kind, count })),
    ...(r.pull === true ? { pull: true } : {}),
  };
}

/** The amount of `creates` at the configured prices. */
export function priceOf(creates: CreateCount[], t: LedgerTerms): number {
  return creates.reduce((sum, c) => sum + c.count * t.prices[c.kind], 0);
}

/**
 * Grants when the budget covers everything committed plus this amount. A key the chain has
 * counted already is granted again, never counted twice. A reserve that wants no answer
 * (no budget) cannot be refused. `maxTotal` bounds the period's total so minor units stay exact.
 * `committed`: committedOf(s), when the caller keeps it as a running total over a batch.
 */
export function reserve(
  s: LedgerState,
  t: LedgerTerms,
  req: ReserveRequest,
  nowIso: string,
  maxTotal: number,
  committed = committedOf(s),
): SpendAnswer {
  const key = chainKey(req.chain);
  const budget = budgetOf(s, t);
  const amount = priceOf(req.creates, t);
  const answer = (granted: boolean, total: number, refused?: string): SpendAnswer => ({
    key: req.key,
    ask: req.ask,
    granted,
    committed: total,
    amount,
    ...(budget !== undefined ? { budget } : {}),
    ...(refused ? { refused } : {}),
  });
  if (s.settled[key]) return answer(false, committed, `chain ${key} is settled: its pipeline has ended`);
  const r = (s.chains[key] ??= { pipelineId: req.chain.pipelineId, keys: [], creates: {}, since: nowIso });
  if (r.keys.includes(req.key)) return answer(true, committed);
  if (committed + amount > maxTotal)
    return answer(false, committed, 'the period total would pass the bound on amounts');
  if (budget !== undefined && req.answer && committed + amount > budget) {
    if (req.wait && !s.waiters.includes(req.chain.pipelineId)) s.waiters.push(req.chain.pipelineId);
    return answer(false, committed);
  }
  r.keys.push(req.key);
  for (const c of req.creates) {
    const held = (r.creates[c.kind] ??= { count: 0, price: t.prices[c.kind] });
    held.count += c.count;
  }
  s.waiters = s.waiters.filter((w) => w !== req.chain.pipelineId);
  return answer(true, committed + amount);
}

/**
 * Settles a chain from its pipeline's own record: confirmed creates become spend, creates
 * left unresolved are kept apart, the rest is released. More than reserved is counted as
 * spent all the same (never lost); without a record all it held is unresolved. Returns the confirmed amounts by kind, or undefined when
 * nothing changed (an unknown or settled chain: a repeat).
 */
export function settle(
  s: LedgerState,
  t: LedgerTerms,
  chain: RunChain,
  record: SpendRecord['ledgers'][string] | undefined,
): Partial<Record<VendorTaskKind, number>> | undefined {
  const key = chainKey(chain);
  if (s.settled[key]) return undefined;
  // Creates its own record shows with no reservation here (an answer forged to the pipeline):
  // counted all the same, at the file's prices, never lost.
  const r =
    s.chains[key] ??
    (hasCreates(record) ? { pipelineId: chain.pipelineId, keys: [], creates: {}, since: '' } : undefined);
  if (!r) return undefined;
  delete s.chains[key];
  rememberSettled(s, key);
  const spent: Partial<Record<VendorTaskKind, number>> = {};
  for (const kind of KINDS) {
    const held = r.creates[kind];
    const used = wholeCount(record?.used[kind]);
    // No record (the pipeline was terminated, or never wrote one): whatever it held is unresolved.
    const open = record ? wholeCount(record.unresolved[kind]) : (held?.count ?? 0);
    const price = held?.price ?? t.prices[kind];
    if (used > 0) spent[kind] = confirm(s, kind, used, price);
    if (open > 0)
      s.unresolved.push({
        key,
        pipelineId: r.pipelineId,
        kind,
        stage: STAGE_OF_KIND[kind],
        count: open,
        amount: open * price,
      });
    s.released += Math.max(0, (held?.count ?? 0) - used - open);
  }
  return spent;
}

const hasCreates = (record: SpendRecord['ledgers'][string] | undefined) =>
  record !== undefined &&
  [...Object.values(record.used ?? {}), ...Object.values(record.unresolved ?? {})].some((n) => wholeCount(n) > 0);

const wholeCount = (n: unknown) =>
  Number.isSafeInteger(n) && (n as number) > 0 ? Math.min(n as number, MAX_CREATES_PER_KIND) : 0;

function confirm(s: LedgerState, kind: VendorTaskKind, count: number, price: number): number {
  const t = ((s.confirmed[STAGE_OF_KIND[kind]] ??= {})[kind] ??= { amount: 0, count: 0 });
  t.amount += count * price;
  t.count += count;
  return count * price;
}

/** A chain settled: a repeated settle, or a late ask, counts nothing (the oldest are forgotten first). */
export function rememberSettled(s: LedgerState, key: string): void {
  s.settled[key] = 1;
  const keys = Object.keys(s.settled);
  // Oldest first (insertion order): a settle repeated this late does not happen.
  for (let i = 0; i < keys.length - MAX_SETTLED_KEYS; i++) delete s.settled[keys[i]];
}

export function viewOf(tenant: string, period: string, s: LedgerState, t: LedgerTerms): LedgerView {
  const budget = budgetOf(s, t);
  const spent = spentOf(s);
  const reserved = reservedOf(s);
  return {
    tenant,
    period,
    currency: t.currency,
    ...(budget !== undefined ? { budget, remaining: budget - committedOf(s) } : {}),
    ...(s.override !== undefined ? { override: s.override } : {}),
    ...(s.override !== undefined && t.budget !== undefined ? { configuredBudget: t.budget } : {}),
    spent,
    reserved,
    unresolved: s.unresolved,
    confirmed: s.confirmed,
    released: s.released,
    refused: s.refused,
  };
}
