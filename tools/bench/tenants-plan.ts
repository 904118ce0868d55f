/**
 * The noisy-neighbour scenario (`npm run bench -- --scenario tenants`; pure): tenant A
 * starts many pipelines at `batch`, tenant B a few at `interactive` some seconds later,
 * on one credential profile, so both share the rate-limited GetAsset queue. Each run of
 * the scenario has its start plan and its worker's tenant configuration.
 */
import type { PriorityLevel } from '../../src/definition/schema';
import type { StartWave } from './reelflow-run';

export const TENANT_A = 'tenant-a';
export const TENANT_B = 'tenant-b';

/**
 * priority: A batch, B interactive, keys on (priority and fairness);
 * fairness: both at normal, keys on (fairness alone);
 * off: no tenants file, no tenant: no keys at all (the behaviour before tenants).
 */
export const TENANT_VARIANTS = ['priority', 'fairness', 'off'] as const;
export type TenantVariant = (typeof TENANT_VARIANTS)[number];

export interface TenantsScenario {
  aPipelines: number;
  bPipelines: number;
  /** B's start, after A's. */
  bDelayMs: number;
  variants: TenantVariant[];
}

export const DEFAULT_TENANTS_SCENARIO: TenantsScenario = {
  aPipelines: 1000,
  bPipelines: 10,
  bDelayMs: 20_000,
  variants: [...TENANT_VARIANTS],
};

/** One run of the scenario: the solo baselines, then the variants. */
export interface TenantsRunPlan {
  label: 'solo-a' | 'solo-b' | TenantVariant;
  waves: StartWave[];
  /** Whose each wave is, in order: the variants have A's then B's, a solo run one of them. */
  groups: ('A' | 'B')[];
  /** The worker gets REELFLOW_TENANTS_FILE with both tenants. */
  tenantsFile: boolean;
}

const PRIORITIES: Record<TenantVariant, { a?: PriorityLevel; b?: PriorityLevel }> = {
  priority: { a: 'batch', b: 'interactive' },
  fairness: { a: 'normal', b: 'normal' },
  off: {},
};

/** A's wave then B's, as the variant sets them (indices 0..A−1 are A's, A..A+B−1 are B's). */
export function variantWaves(s: TenantsScenario, variant: TenantVariant): StartWave[] {
  const keys = variant !== 'off';
  const p = PRIORITIES[variant];
  return [
    { count: s.aPipelines, afterMs: 0, ...(keys ? { tenant: TENANT_A } : {}), ...(p.a ? { priority: p.a } : {}) },
    {
      count: s.bPipelines,
      afterMs: s.bDelayMs,
      ...(keys ? { tenant: TENANT_B } : {}),
      ...(p.b ? { priority: p.b } : {}),
    },
  ];
}

/** Solo B, solo A (each alone at its `priority` variant's level, on the same stack), then each variant. */
export function tenantsRunPlans(s: TenantsScenario): TenantsRunPlan[] {
  const [a, b] = variantWaves(s, 'priority');
  return [
    { label: 'solo-b', waves: [{ ...b, afterMs: 0 }], groups: ['B'], tenantsFile: true },
    { label: 'solo-a', waves: [a], groups: ['A'], tenantsFile: true },
    ...s.variants.map((v): TenantsRunPlan => ({
      label: v,
      waves: variantWaves(s, v),
      groups: ['A', 'B'],
      tenantsFile: v !== 'off',
    })),
  ];
}

/**
 * The worker's tenant configuration: both tenants may run at interactive, weight 1, no
 * concurrency limit and no budget, so only priority and fairness are measured.
 */
export function tenantsFileContent(ids: readonly string[] = [TENANT_A, TENANT_B]): object {
  return {
    defaults: { maxPriority: 'interactive', weight: 1 },
    tenants: Object.fromEntries(ids.map((id) => [id, {}])),
  };
}

/**
 * A run's own tenant ids (`tenant-a-priority-<suffix>`): a tenant's ledger lives on the task
 * queue that first used it (docs/tenants.md, "Budgets"), and each run has its own queue.
 */
export function ownTenants(plan: TenantsRunPlan, suffix: string): { waves: StartWave[]; file: object } {
  const id = (tenant: string) => `${tenant}-${plan.label}-${suffix}`;
  return {
    waves: plan.waves.map((w) => (w.tenant === undefined ? w : { ...w, tenant: id(w.tenant) })),
    file: tenantsFileContent([TENANT_A, TENANT_B].map(id)),
  };
}

/** The server settings that decide whether priority and fairness keys take effect (docs/tenants.md). */
export const MATCHER_KEYS = ['matching.useNewMatcher', 'matching.enableFairness', 'matching.enableMigration'] as const;

/**
 * The matcher keys' values in a dynamic config YAML (`key:` then `- value: v`, as in
 * deploy/dynamicconfig.yaml); a key it does not set is "unset" (the server's default: off).
 */
export function matcherSettingsOf(yaml: string): Record<string, string> {
  return Object.fromEntries(
    MATCHER_KEYS.map((k) => {
      const m = new RegExp(`^${k.replace(/\./g, '\\.')}:\\s*\\n\\s*-\\s*value:\\s*(\\S+)`, 'm').exec(yaml);
      return [k, m?.[1] ?? 'unset'];
    }),
  );
}
