/**
 * `npm run bench -- --scenario budgets`: the default workload once per tenancy (none,
 * count-only, budget; budgets-plan.ts), alternating, on one Temporal server, each run with
 * a fresh emulator, worker(s), task queue and tenant (runReelflow). A tenant's run waits
 * until its ledger holds no reservation, then reads the ledger's view and history.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { ledgerId, parseLedgerId, periodOf, type LedgerView } from '../../src/contract/ledger';
import { viewOf } from '../../src/contract/ledger-book';
import { readLedger } from '../../src/tenants/ledger-read';
import type { BudgetPeriod } from '../../src/contract/tenancy';
import type { BenchFlags } from './flags';
import { addLedgerHistory, EMPTY_LEDGER_HISTORY, ledgerHistory } from './ledger-counts';
import { runReelflow } from './reelflow-run';
import type { BudgetsRun, LedgerReading } from './budgets-report';
import { budgetFor, budgetsRunPlans, budgetsTenantsFile, type BudgetsScenario } from './budgets-plan';
import { phaseContextOf, type TenantsRunContext } from './tenants-run';

/** How long a run waits for its ledger's last settles after its last pipeline ended. */
const DRAIN_WAIT_MS = 300_000;

/** The ledger ids of `tenant` for every period from `fromMs` to now (one, unless the run crossed midnight). */
function ledgerIds(tenant: string, kind: BudgetPeriod, fromMs: number): string[] {
  const periods = new Set([periodOf(fromMs, kind, 0), periodOf(Date.now(), kind, 0)]);
  return [...periods].map((p) => ledgerId(tenant, p));
}

interface LedgerRead {
  id: string;
  view?: LedgerView;
  /** Messages received and not yet handled (settles being read included). */
  pending: number;
  /** Chains still holding a reservation. */
  open: number;
}

/**
 * Each ledger's money as `reelflow usage` reads it (docs/tenants.md, "Budgets"): the newest
 * run that opened, and what later runs received; a run still opening has no view of its own.
 */
async function readAll(client: Client, ids: string[]): Promise<LedgerRead[]> {
  return Promise.all(
    ids.map(async (id): Promise<LedgerRead> => {
      const { state, terms, inbox } = await readLedger(client, id);
      const { tenant, period } = parseLedgerId(id)!;
      return {
        id,
        ...(state && terms ? { view: viewOf(tenant, period, state, terms) } : {}),
        pending: inbox.length,
        open: state ? Object.keys(state.chains).length : 0,
      };
    }),
  );
}

const settled = (reads: LedgerRead[]) =>
  reads.some((r) => r.view) && reads.every((r) => (!r.view && r.pending === 0) || (r.pending === 0 && r.open === 0));

/** Waits (bounded) until every ledger of the run has handled its messages and holds no reservation. */
async function drain(client: Client, ids: string[]): Promise<{ drainMs: number; drained: boolean }> {
  const t0 = Date.now();
  for (;;) {
    if (settled(await readAll(client, ids))) return { drainMs: Date.now() - t0, drained: true };
    if (Date.now() - t0 > DRAIN_WAIT_MS) return { drainMs: Date.now() - t0, drained: false };
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** The run's ledgers: their views summed, their histories counted. */
async function readLedgers(client: Client, ids: string[], d: { drainMs: number; drained: boolean }) {
  const reads = (await readAll(client, ids)).filter((r) => r.view || r.pending);
  let history = EMPTY_LEDGER_HISTORY;
  for (const { id } of reads) {
    const h = await ledgerHistory(client, id);
    if (h) history = addLedgerHistory(history, h);
  }
  const views = reads.flatMap((r) => (r.view ? [r.view] : []));
  const total = (f: (v: LedgerView) => number) => views.reduce((a, v) => a + f(v), 0);
  const budgets = views.map((v) => v.budget).filter((b): b is number => b !== undefined);
  const reading: LedgerReading = {
    ids: reads.map((x) => x.id),
    ...(budgets.length ? { budget: budgets.reduce((a, b) => a + b, 0) } : {}),
    spent: total((v) => v.spent),
    reserved: total((v) => v.reserved),
    unresolved: total((v) => v.unresolved.length),
    released: total((v) => v.released),
    refused: total((v) => v.refused),
    pending: reads.reduce((a, r) => a + r.pending, 0),
    ...d,
    history,
  };
  return reading;
}

export async function runBudgetsScenario(
  flags: BenchFlags,
  scenario: BudgetsScenario,
  c: TenantsRunContext,
): Promise<BudgetsRun[]> {
  const suffix = randomBytes(3).toString('hex');
  const sizing = budgetFor(flags.pipelines, flags.workload);
  const runs: BudgetsRun[] = [];
  for (const plan of budgetsRunPlans(scenario)) {
    const tenant = plan.tenancy === 'none' ? undefined : `bench-${plan.label}-${suffix}`;
    const file = tenant ? budgetsTenantsFile(plan.tenancy, tenant, sizing) : undefined;
    const tenantsFile = path.join(c.runDir, `tenants-${plan.label}.json`);
    if (file) writeFileSync(tenantsFile, JSON.stringify(file, null, 2));
    const ctx = phaseContextOf(flags, c, flags.pipelines);
    const from = Date.now();
    const ids = () => (tenant ? ledgerIds(tenant, plan.tenancy === 'budget' ? 'day' : 'month', from) : []);
    const read: { drained?: { drainMs: number; drained: boolean }; ledger?: LedgerReading } = {};
    c.log(`budgets: run ${plan.label} (${tenant ? `tenant ${tenant}` : 'no tenants file'})`);
    const result = await runReelflow({
      ctx,
      label: plan.label,
      temporal: c.temporal,
      workers: flags.workers,
      ...(flags.getAssetRate !== undefined ? { getAssetRate: flags.getAssetRate } : {}),
      workerEnv: { ...flags.workerEnv, ...(file ? { REELFLOW_TENANTS_FILE: tenantsFile } : {}) },
      sampler: c.sampler,
      ...(tenant
        ? {
            beforeSample: async (client: Client) => void (read.drained = await drain(client, ids())),
            afterRun: async (client: Client) =>
              void (read.ledger = await readLedgers(client, ids(), read.drained ?? { drainMs: NaN, drained: false })),
          }
        : {}),
    });
    const { ledger } = read;
    c.log(
      `  ${plan.label}: ${result.completed}/${result.pipelines} in ${(result.wallMs / 1000).toFixed(1)} s` +
        `${ledger ? `; ledger spent ${ledger.spent} of ${ledger.budget ?? 'no budget'}, drained in ${(ledger.drainMs / 1000).toFixed(1)} s` : ''}`,
    );
    runs.push({ plan, ...(tenant ? { tenant, tenantsFile: file } : {}), ...(ledger ? { ledger } : {}), result });
  }
  return runs;
}
