/**
 * The chaos run's tenants and its concurrency invariant (docs/tenants.md, "Concurrency limits"):
 * the pipelines are spread over a few tenants with a small limit, and afterwards "at every
 * instant a tenant has at most N slot holders, and every create of that tenant is sent by a
 * slot holder" is checked by joining the emulator's create times with the gates' grants and
 * releases as their histories record them (gate-timeline.ts). The emulator learns nothing
 * about tenants: a record is tied to its pipeline by its tag (chaos-invariants.ts).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { InspectionSnapshot } from '../../src/emulator/inspection';
import { attributeRecords, type InvariantResult } from './chaos-invariants';
import { formatMinorUnits, parseTenantsConfig, priceTable } from '../../src/tenants/config';
import { CHAOS_PRICES } from './chaos-ledger';
import { CHAOS_TENANTS, type PlannedPipeline } from './chaos-plan';
import { heldAt, readGateTimeline, type GateTimeline } from './gate-timeline';

export interface ChaosTenants {
  ids: string[];
  concurrency: number;
  /** REELFLOW_TENANTS_FILE of the workers. */
  file: string;
  /** Each tenant's monthly budget, minor units; absent: none (spend counted, never refused). */
  budgets: Record<string, number | undefined>;
}

/** A budget this many times its pipelines' planned spend: room for the creates sent again, never reached. */
export const BUDGET_HEADROOM = 2;

/** The price of the creates a pipeline plans (one of each, two assets), minor units. */
export function plannedPrice(p: PlannedPipeline): number {
  const price = priceTable(parseTenantsConfig({ prices: CHAOS_PRICES, tenants: {} }));
  return (
    p.reviewBatches.length * price.review +
    price.assetGroup +
    p.assetNames.length * price.asset +
    price.generation +
    price.erase
  );
}

/**
 * Budgets per month: every tenant but the last has one, BUDGET_HEADROOM × its pipelines'
 * planned spend, so its pipelines wait for the ledger's answer and the run still completes
 * whatever the order of their reserves; the last has none, so its pipelines reserve without
 * waiting for an answer (docs/tenants.md, "Budgets"). A tight budget would make which
 * pipeline waits or fails depend on timing (docs/benchmarks.md, "Chaos run (`npm run chaos`)").
 */
function budgetsOf(ids: string[], plan: PlannedPipeline[]): Record<string, number | undefined> {
  const budgets: Record<string, number | undefined> = {};
  ids.forEach((id, i) => {
    const own = plan.filter((p) => p.index % ids.length === i);
    budgets[id] =
      i < ids.length - 1 || ids.length === 1
        ? BUDGET_HEADROOM * own.reduce((sum, p) => sum + plannedPrice(p), 0)
        : undefined;
  });
  return budgets;
}

/**
 * Three tenants named after the run (a gate lives on the task queue that first asked it, so
 * no run meets an earlier run's gate), each limited to about a twelfth of the pipelines, and
 * the pipelines dealt round-robin among them.
 */
export function chaosTenants(taskQueue: string, workDir: string, plan: PlannedPipeline[]): ChaosTenants {
  const ids = Array.from({ length: Math.min(CHAOS_TENANTS, plan.length) }, (_, i) => `${taskQueue}.t${i + 1}`);
  const concurrency = Math.max(2, Math.ceil(plan.length / 12));
  const budgets = budgetsOf(ids, plan);
  const limits = (id: string) => {
    const amount = budgets[id];
    return amount === undefined ? {} : { budget: { period: 'month', amount: formatMinorUnits(amount) } };
  };
  const file = path.join(workDir, 'tenants.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        prices: CHAOS_PRICES,
        defaults: { concurrency },
        tenants: Object.fromEntries(ids.map((id) => [id, limits(id)])),
      },
      null,
      2,
    ),
  );
  for (const p of plan) p.definition.options = { ...p.definition.options, tenant: ids[p.index % ids.length] };
  return { ids, concurrency, file, budgets };
}

export function readTimelines(client: Client, tenants: ChaosTenants): Promise<GateTimeline[]> {
  return Promise.all(tenants.ids.map((id) => readGateTimeline(client, id)));
}

type Snapshot = Pick<
  InspectionSnapshot,
  'generationTasks' | 'eraseTasks' | 'groups' | 'assets' | 'reviewTasks' | 'counters'
>;

function createdAtById(s: Snapshot): Map<string, number> {
  const at = new Map<string, number>();
  for (const r of s.reviewTasks) at.set(r.taskId, Date.parse(r.createdAt));
  for (const g of s.groups) at.set(g.Id, Date.parse(g.createdAt));
  for (const a of s.assets) at.set(a.Id, Date.parse(a.createdAt));
  for (const g of s.generationTasks) at.set(g.id, Date.parse(g.createdAt));
  for (const e of s.eraseTasks) at.set(e.taskId, Date.parse(e.createdAt));
  return at;
}

/** 7. At most N holders per tenant at every instant; every create sent while its pipeline held a slot. */
export function checkConcurrencyLimit(
  plan: PlannedPipeline[],
  snapshot: Snapshot,
  tenants: ChaosTenants,
  timelines: GateTimeline[],
): InvariantResult {
  const problems: string[] = [];
  const breakdown: Record<string, number> = {};
  for (const t of timelines) {
    breakdown[`${t.tenant} most holders`] = t.maxHolders;
    if (t.maxHolders > tenants.concurrency)
      problems.push(`${t.tenant}: ${t.maxHolders} holders at once, limit ${tenants.concurrency}`);
  }
  const byTag = new Map(plan.map((p) => [p.tag, p]));
  const timelineOf = new Map(timelines.map((t) => [t.tenant, t]));
  const createdAt = createdAtById(snapshot);
  let checked = timelines.length;
  for (const r of attributeRecords(snapshot)) {
    const p = r.tag ? byTag.get(r.tag) : undefined;
    const tenant = p?.definition.options?.tenant;
    if (!p || !tenant) continue; // unattributed records are the no-duplicates invariant's
    checked++;
    const at = createdAt.get(r.id)!;
    if (!heldAt(timelineOf.get(tenant)!, p.workflowId, at))
      problems.push(
        `${r.kind} ${r.id} of ${p.workflowId} (${tenant}) created at ${new Date(at).toISOString()} without a slot`,
      );
  }
  return {
    id: 'concurrency-limit',
    title: 'Per tenant, at most N slot holders at once, and every create sent by a holder',
    definition:
      `${tenants.ids.length} tenants, limit ${tenants.concurrency} each; holdings replayed from each gate's histories ` +
      '(grant = SignalExternalWorkflowExecutionInitiated; release = releaseSlot signal, failed grant, or sweep result); ' +
      "each vendor record's emulator createdAt must fall inside a holding of the pipeline it belongs to",
    violations: problems.length,
    checked,
    pass: problems.length === 0,
    examples: problems.slice(0, 10),
    breakdown,
  };
}
