/**
 * `npm run bench -- --scenario budgets`: the default workload once per tenancy (none,
 * count-only, budget; budgets-plan.ts), alternating, on one Temporal server, each run with
 * a fresh emulator, worker(s), task queue and tenant (runReelflow). A tenant's run waits
 * until its ledger holds no reservation, then reads the ledger's view and history.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ledgerId, ledgerQuery, periodOf, type LedgerView } from '../../src/contract/ledger';
import type { BudgetPeriod } from '../../src/contract/tenancy';
import type { BenchFlags } from './flags';
import { addLedgerHistory, EMPTY_LEDGER_HISTORY, ledgerHistory } from './ledger-counts';
import { runReelflow } from './reelflow-run';
import type { BudgetsRun, LedgerReading } from './budgets-report';
import { budgetFor, budgetsRunPlans, budgetsTenantsFile, type BudgetsScenario } from './budgets-plan';
import { phaseContextOf, type TenantsRunContext } from './tenants-run';

/** How long a run waits for its ledger's last settles after its last pipeline ended. */
const DRAIN_WAIT_MS = 120_000;

/** The ledger ids of `tenant` for every period from `fromMs` to now (one, unless the run crossed midnight). */
function ledgerIds(tenant: string, kind: BudgetPeriod, fromMs: number): string[] {
  const periods = new Set([periodOf(fromMs, kind, 0), periodOf(Date.now(), kind, 0)]);
  return [...periods].map((p) => ledgerId(tenant, p));
}

async function views(client: Client, ids: string[]): Promise<{ id: string; view: LedgerView }[]> {
  const out: { id: string; view: LedgerView }[] = [];
  for (const id of ids) {
    try {
      out.push({ id, view: await client.workflow.getHandle(id).query(ledgerQuery) });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return out;
}

/** Waits (bounded) until every ledger of the run holds no reservation: each pipeline's settle was read. */
async function drain(client: Client, ids: string[]): Promise<{ drainMs: number; drained: boolean }> {
  const t0 = Date.now();
  for (;;) {
    const found = await views(client, ids);
    if (found.length > 0 && found.every((v) => v.view.reserved === 0))
      return { drainMs: Date.now() - t0, drained: true };
    if (Date.now() - t0 > DRAIN_WAIT_MS) return { drainMs: Date.now() - t0, drained: false };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The run's ledgers: their views summed, their histories counted. */
async function readLedgers(client: Client, ids: string[], d: { drainMs: number; drained: boolean }) {
  const found = await views(client, ids);
  let history = EMPTY_LEDGER_HISTORY;
  for (const { id } of found) {
    const h = await ledgerHistory(client, id);
    if (h) history = addLedgerHistory(history, h);
  }
  const total = (f: (v: LedgerView) => number) => found.reduce((a, x) => a + f(x.view), 0);
  const budgets = found.map((x) => x.view.budget).filter((b): b is number => b !== undefined);
  const reading: LedgerReading = {
    ids: found.map((x) => x.id),
    ...(budgets.length ? { budget: budgets.reduce((a, b) => a + b, 0) } : {}),
    spent: total((v) => v.spent),
    reserved: total((v) => v.reserved),
    unresolved: total((v) => v.unresolved.length),
    released: total((v) => v.released),
    refused: total((v) => v.refused),
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
