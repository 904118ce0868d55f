/**
 * The chaos run's spend ledger check (docs/tenants.md, "Budgets"): the pipelines run as
 * three tenants of a tenants file with a price for every paid kind, and after the run each
 * tenant's confirmed spend (its ledgers, read as `reelflow usage` reads them) must equal
 * the vendor records its pipelines created (the emulator's inspection, attributed by tag as
 * the no-duplicates invariant does) × their prices, to the minor unit. Reservations left
 * unresolved are listed on their own lines, never counted nor dropped.
 *
 * The tenants file is chaos-gate.ts's (its tenants, with these prices); chaos-run.ts calls
 * checkLedger() after the emulator's snapshot.
 */
import type { Client } from '@temporalio/client';
import { tenantUsage, type TenantUsage } from '../../src/starters/client/ledger';
import { formatMinorUnits, parseTenantsConfig, priceTable } from '../../src/tenants/config';
import { attributeRecords, type InvariantResult } from './chaos-invariants';
import type { PlannedPipeline } from './chaos-plan';
import type { InspectionSnapshot } from '../../src/emulator/inspection';

/** Distinct prices, so a record counted under the wrong kind shows (chaos-gate.ts writes them into the tenants file). */
export const CHAOS_PRICES = {
  review: '0.01',
  assetGroup: '0.002',
  asset: '0.0003',
  generation: '0.35',
  erase: '0.000017',
};

/** Every tenant's usage once visibility lists all its ledgers (polled: visibility lags a moment). */
async function usageOf(client: Client, tenants: string[]): Promise<Map<string, TenantUsage>> {
  let last = new Map<string, TenantUsage>();
  for (let i = 0; i < 30; i++) {
    const all = await Promise.all(tenants.map((tenant) => tenantUsage(client, { tenant })));
    const now = new Map(all.flat().map((u) => [u.tenant, u]));
    const same = [...now].every(([t, u]) => last.get(t)?.spent === u.spent && last.get(t)?.reserved === u.reserved);
    if (now.size === tenants.length && same && i > 0) return now;
    last = now;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return last;
}

export async function checkLedger(
  client: Client,
  plan: PlannedPipeline[],
  snapshot: Pick<
    InspectionSnapshot,
    'generationTasks' | 'eraseTasks' | 'groups' | 'assets' | 'reviewTasks' | 'counters'
  >,
  log: (line: string) => void = () => undefined,
): Promise<InvariantResult> {
  const prices = priceTable(parseTenantsConfig({ prices: CHAOS_PRICES, tenants: {} }));
  const tenantOfTag = new Map(plan.map((p) => [p.tag, p.definition.options!.tenant!]));
  const tenants = [...new Set(tenantOfTag.values())].sort();
  const expected = new Map(tenants.map((t) => [t, 0]));
  for (const r of attributeRecords(snapshot)) {
    const tenant = r.tag === undefined ? undefined : tenantOfTag.get(r.tag);
    if (tenant !== undefined) expected.set(tenant, expected.get(tenant)! + prices[r.kind]);
  }
  const usage = await usageOf(client, tenants);
  // Examples hold what needs a look: a tenant whose spend differs, and each unresolved
  // reservation on its own line (the run passes with them: they are not spend).
  const problems: string[] = [];
  const unresolved: string[] = [];
  const breakdown: Record<string, number> = { unresolved: 0, reservedLeft: 0 };
  for (const t of tenants) {
    const u = usage.get(t);
    const spent = u?.spent ?? 0;
    const want = expected.get(t)!;
    const line = `${t}: confirmed ${formatMinorUnits(spent)}, vendor records × price ${formatMinorUnits(want)}`;
    log(`chaos: ledger ${line}`);
    breakdown[`${t} confirmed (minor units)`] = spent;
    if (spent !== want) problems.push(`${line} (differs by ${formatMinorUnits(spent - want)})`);
    breakdown.reservedLeft += u?.reserved ?? 0;
    for (const r of u?.unresolved ?? []) {
      breakdown.unresolved += 1;
      unresolved.push(`unresolved: ${t} ${r.stage} ${r.kind} ${formatMinorUnits(r.amount)} (${r.key})`);
    }
  }
  for (const line of unresolved) log(`chaos: ledger ${line}`);
  return {
    id: 'ledger-exact',
    title: "Each tenant's confirmed spend equals its vendor records × price",
    definition:
      "per tenant, the sum of its ledgers' confirmed spend (reelflow usage) equals, to the minor unit, the emulator's " +
      'records of its pipelines (attributed as for no-duplicates) × the price of their kind; reservations left ' +
      'unresolved are listed on their own lines',
    violations: problems.length,
    checked: tenants.length,
    pass: problems.length === 0,
    examples: [...problems, ...unresolved],
    breakdown,
  };
}
