/**
 * The state of one tenant's ledger for one period (docs/tenants.md, "Budgets"), as plain
 * data and pure functions: tenantLedger (../tenant-ledger.ts) holds one and answers from
 * it. Reservations are keyed `<pipelineId>/<step>/<attempt>`, so a reserve or settle that
 * arrives twice (an activity retried, a signal sent again after continue-as-new) counts once.
 * Confirmed spend is aggregated by stage and kind at once; only open reservations are
 * kept whole, and settled keys only as far as idempotency needs (MAX_SETTLED_KEYS).
 */
import {
  MAX_SETTLED_KEYS,
  type LedgerCarry,
  type LedgerInput,
  type LedgerView,
  type ReserveAnswer,
  type ReserveRequest,
  type SettleMessage,
} from '../../contract/ledger';

export function emptyCarry(input: LedgerInput, override?: number): LedgerCarry {
  return {
    ...(input.budget !== undefined ? { budget: input.budget } : {}),
    ...(override !== undefined ? { override } : {}),
    configured: input.configured,
    open: {},
    settled: {},
    confirmed: {},
    released: 0,
    waiters: [],
  };
}

/** The budget in force: `budget set`'s, else the configured one. */
export function budgetOf(c: LedgerCarry): number | undefined {
  return c.override ?? c.budget;
}

export function spentOf(c: LedgerCarry): number {
  let sum = 0;
  for (const byKind of Object.values(c.confirmed)) for (const t of Object.values(byKind)) sum += t.amount;
  return sum;
}

export function reservedOf(c: LedgerCarry): number {
  return Object.values(c.open).reduce((sum, r) => sum + r.amount, 0);
}

/** Grants when the budget covers confirmed + open + this amount; a known key is granted again, never counted twice. */
export function reserve(c: LedgerCarry, req: ReserveRequest, nowIso: string): ReserveAnswer {
  const budget = budgetOf(c);
  const committed = spentOf(c) + reservedOf(c);
  const known = c.open[req.key] !== undefined || c.settled[req.key] !== undefined;
  const answer = (granted: boolean, total: number): ReserveAnswer => ({
    granted,
    committed: total,
    ...(budget !== undefined ? { budget } : {}),
  });
  if (req.probe) return answer(budget === undefined || committed + req.amount <= budget, committed);
  if (known) return answer(true, committed);
  // A reserve that wants no answer cannot be refused: its pipeline goes on (no budget in its policy).
  if (budget !== undefined && req.answer !== false && committed + req.amount > budget) {
    if (req.wait && !c.waiters.includes(req.pipelineId)) c.waiters.push(req.pipelineId);
    return answer(false, committed);
  }
  const { amount, kind, stage, pipelineId } = req;
  c.open[req.key] = { amount, kind, stage, pipelineId, state: 'reserved', since: nowIso };
  c.waiters = c.waiters.filter((w) => w !== pipelineId);
  return answer(true, committed + amount);
}

/**
 * Settles an open reservation; returns what it confirmed (for the spend metric), or
 * undefined when nothing changed (an unknown or settled key: a repeat).
 */
export function settle(
  c: LedgerCarry,
  msg: SettleMessage,
): { confirmed?: { kind: string; amount: number } } | undefined {
  const r = c.open[msg.key];
  if (!r) {
    // Released before its ask arrived (the pipeline was cancelled meanwhile): a late ask counts nothing.
    if (msg.outcome === 'release' && c.settled[msg.key] === undefined) remember(c, msg.key, 'r');
    return undefined;
  }
  if (msg.outcome === 'unresolved') {
    r.state = 'unresolved';
    return {};
  }
  delete c.open[msg.key];
  remember(c, msg.key, msg.outcome === 'confirm' ? 'c' : 'r');
  if (msg.outcome === 'release') {
    c.released++;
    return {};
  }
  const byKind = (c.confirmed[r.stage] ??= {});
  const t = (byKind[r.kind] ??= { amount: 0, count: 0 });
  t.amount += r.amount;
  t.count++;
  return { confirmed: { kind: r.kind, amount: r.amount } };
}

function remember(c: LedgerCarry, key: string, how: 'c' | 'r'): void {
  c.settled[key] = how;
  const keys = Object.keys(c.settled);
  // Oldest first (insertion order): a settle or reserve repeated this late does not happen.
  for (let i = 0; i < keys.length - MAX_SETTLED_KEYS; i++) delete c.settled[keys[i]];
}

export function viewOf(input: LedgerInput, c: LedgerCarry): LedgerView {
  const budget = budgetOf(c);
  const spent = spentOf(c);
  const open = reservedOf(c);
  const unresolved = Object.entries(c.open)
    .filter(([, r]) => r.state === 'unresolved')
    .map(([key, r]) => ({ key, amount: r.amount, kind: r.kind, stage: r.stage, pipelineId: r.pipelineId }));
  const reserved = open - unresolved.reduce((sum, u) => sum + u.amount, 0);
  return {
    tenant: input.tenant,
    period: input.period,
    currency: input.currency,
    ...(budget !== undefined ? { budget, remaining: budget - spent - open } : {}),
    ...(c.override !== undefined ? { override: c.override } : {}),
    ...(c.override !== undefined && c.budget !== undefined ? { configuredBudget: c.budget } : {}),
    spent,
    reserved,
    unresolved,
    confirmed: c.confirmed,
    released: c.released,
  };
}
