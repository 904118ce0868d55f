/**
 * Spend and budgets from the tenants' ledgers (docs/tenants.md, "Budgets"): `reelflow usage`
 * and `reelflow budget set|show`, as library functions. Each ledger id is read across all its
 * runs (src/tenants/ledger-read.ts), so a terminated ledger's money is still counted; budgets
 * are changed by an Update on the current period's ledger, started when it does not exist yet.
 */
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import {
  LEDGER_WORKFLOW,
  ledgerId,
  ledgerStartOptions,
  parseLedgerId,
  periodOf,
  setBudgetUpdate,
  type LedgerView,
  type SpendTotal,
} from '../../contract/ledger';
import { viewOf } from '../../contract/ledger-book';
import { readLedger } from '../../tenants/ledger-read';
import type { BudgetPeriod } from '../../contract/tenancy';
import type { TenantsConfig } from '../../tenants/config';
import { TENANT } from '../../contract/search-attributes';
import { checkTenantOptions } from './tenant-options';

export interface TenantUsage {
  tenant: string;
  currency: string;
  /** The periods read, oldest first. */
  periods: string[];
  /** Confirmed spend, minor units. */
  spent: number;
  /** Reservations of creates in flight or ambiguous, minor units. */
  reserved: number;
  released: number;
  /** Confirmed spend and creates by stage, then paid create kind. */
  byStage: Record<string, Record<string, SpendTotal>>;
  unresolved: LedgerView['unresolved'];
}

/** Spend and counts by tenant and stage, over the periods that end on or after `since` (YYYY-MM-DD). */
export async function tenantUsage(
  client: Client,
  opts: { tenant?: string; since?: string } = {},
): Promise<TenantUsage[]> {
  // A tenant id has no quote (the definition's own rule), so it cannot end the literal it goes in.
  if (opts.tenant !== undefined) checkTenantOptions({ tenant: opts.tenant });
  const query = `WorkflowType = '${LEDGER_WORKFLOW}'${opts.tenant ? ` AND ${TENANT.name} = '${opts.tenant}'` : ''}`;
  // Visibility lists every run of an id (continued as new, terminated and started again): one read per id.
  const ids = new Set<string>();
  for await (const wf of client.workflow.list({ query })) {
    const id = parseLedgerId(wf.workflowId);
    // A period counts when it ends on or after `since`: "2026-11" against "2026-11-15" compares "2026-11".
    if (id && !(opts.since && id.period < opts.since.slice(0, id.period.length))) ids.add(wf.workflowId);
  }
  const views = (await Promise.all([...ids].map((id) => readView(client, id)))).filter((v) => v !== undefined);
  const byTenant = new Map<string, TenantUsage>();
  for (const v of views.sort((a, b) => a.period.localeCompare(b.period))) {
    const u = byTenant.get(v.tenant) ?? {
      tenant: v.tenant,
      currency: v.currency,
      periods: [],
      spent: 0,
      reserved: 0,
      released: 0,
      byStage: {},
      unresolved: [],
    };
    byTenant.set(v.tenant, u);
    u.periods.push(v.period);
    u.spent += v.spent;
    u.reserved += v.reserved;
    u.released += v.released;
    u.unresolved.push(...v.unresolved);
    for (const [stage, byKind] of Object.entries(v.confirmed)) {
      for (const [kind, t] of Object.entries(byKind)) {
        const sum = ((u.byStage[stage] ??= {})[kind] ??= { amount: 0, count: 0 });
        sum.amount += t.amount;
        sum.count += t.count;
      }
    }
  }
  return [...byTenant.values()].sort((a, b) => a.tenant.localeCompare(b.tenant));
}

/** A ledger id's view across its runs; undefined when no run of it ever opened. */
async function readView(client: Client, id: string): Promise<LedgerView | undefined> {
  const { tenant, period } = parseLedgerId(id)!;
  const snap = await readLedger(client, id);
  if (snap.state && Object.keys(snap.state.chains).length > 0) await reopenIfEnded(client, { tenant, period });
  return snap.state && snap.terms ? viewOf(tenant, period, snap.state, snap.terms) : undefined;
}

/**
 * A ledger whose last run was ended by hand (terminated, cancelled) while it held
 * reservations is started again on its queue: its next run reads the money and settles the
 * pipelines that closed meanwhile, which send it no settle (docs/tenants.md, "Budgets").
 */
async function reopenIfEnded(client: Client, id: { tenant: string; period: string }): Promise<void> {
  const d = await client.workflow
    .getHandle(ledgerId(id.tenant, id.period))
    .describe()
    .catch(() => undefined);
  if (!d || ['RUNNING', 'CONTINUED_AS_NEW'].includes(d.status.name)) return;
  // USE_EXISTING: a run someone else started meanwhile is kept.
  await client.workflow.start(LEDGER_WORKFLOW, ledgerStartOptions(id.tenant, id.period, d.taskQueue));
}

export interface BudgetLine {
  tenant: string;
  period: string;
  currency: string;
  /** From the tenants file, minor units (absent: none configured). */
  configured?: number;
  /** In force for this period: `budget set`'s, else the configured one. */
  budget?: number;
  spent: number;
  reserved: number;
  remaining?: number;
}

const unresolvedAmount = (v: LedgerView) => v.unresolved.reduce((sum, u) => sum + u.amount, 0);

/** The period kind a tenant's pipelines reserve in: its budget's, else month (spend still counted). */
function periodKindOf(config: TenantsConfig, tenant: string): BudgetPeriod {
  return (config.tenants[tenant]?.budget ?? config.defaults.budget)?.period ?? 'month';
}

function configuredBudget(config: TenantsConfig, tenant: string): number | undefined {
  return (config.tenants[tenant]?.budget ?? config.defaults.budget)?.amount;
}

function knownTenant(config: TenantsConfig, tenant: string): string {
  if (!Object.hasOwn(config.tenants, tenant))
    throw new Error(`--tenant: "${tenant}" is not a tenant of REELFLOW_TENANTS_FILE`);
  return tenant;
}

/** Each tenant's budget for its current period: configured, in force, spent, remaining. */
export async function tenantBudgets(
  client: Client,
  config: TenantsConfig,
  opts: { tenant?: string; nowMs?: number } = {},
): Promise<BudgetLine[]> {
  const tenants = opts.tenant ? [knownTenant(config, opts.tenant)] : Object.keys(config.tenants).sort();
  return Promise.all(
    tenants.map(async (tenant) => {
      const period = periodOf(opts.nowMs ?? Date.now(), periodKindOf(config, tenant), config.utcOffset);
      const configured = configuredBudget(config, tenant);
      const base = { tenant, period, currency: config.currency, ...(configured !== undefined ? { configured } : {}) };
      const v = await readView(client, ledgerId(tenant, period));
      if (v) {
        const inForce = v.budget !== undefined ? { budget: v.budget, remaining: v.remaining! } : {};
        return { ...base, ...inForce, spent: v.spent, reserved: v.reserved + unresolvedAmount(v) };
      }
      // No spend yet this period: its ledger starts with the first reserve.
      const inForce = configured !== undefined ? { budget: configured, remaining: configured } : {};
      return { ...base, ...inForce, spent: 0, reserved: 0 };
    }),
  );
}

export interface SetBudgetOptions {
  tenant: string;
  /** Minor units. */
  amount: number;
  /** Must be the tenant's configured period: its pipelines reserve in ledgers of that period. */
  period?: BudgetPeriod;
  /** The worker's task queue: the ledger runs there when this starts it. */
  taskQueue: string;
  nowMs?: number;
}

/** Sets the budget of the tenant's current period (and, inherited, the periods after it); waiting pipelines go on. */
export async function setTenantBudget(
  client: Client,
  config: TenantsConfig,
  opts: SetBudgetOptions,
): Promise<LedgerView> {
  const tenant = knownTenant(config, opts.tenant);
  const kind = periodKindOf(config, tenant);
  if (opts.period !== undefined && opts.period !== kind)
    throw new Error(
      `--period: tenant ${tenant}'s pipelines reserve per ${kind} (REELFLOW_TENANTS_FILE); change the file to change the period`,
    );
  const period = periodOf(opts.nowMs ?? Date.now(), kind, config.utcOffset);
  const configured = configuredBudget(config, tenant);
  // Its pipelines do not wait for the ledger's answer, so a budget set here would not stop them.
  if (configured === undefined)
    throw new Error(
      `--tenant: tenant ${tenant} has no budget in REELFLOW_TENANTS_FILE (tenants.${tenant}.budget or defaults.budget): its spend is counted, not capped; configure one to cap it`,
    );
  return client.workflow.executeUpdateWithStart(setBudgetUpdate, {
    args: [{ amount: opts.amount }],
    startWorkflowOperation: new WithStartWorkflowOperation(
      LEDGER_WORKFLOW,
      ledgerStartOptions(tenant, period, opts.taskQueue),
    ),
  });
}
