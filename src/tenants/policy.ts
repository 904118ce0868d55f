/**
 * One pipeline's tenant policy, from its definition and the worker's tenant configuration
 * (docs/tenants.md). The definition asks; the configuration decides: an unknown tenant is
 * refused (or runs as the default tenant), a credential profile the tenant may not spend on
 * is refused, and a priority above the tenant's highest is lowered to it.
 */
import { DefinitionError, type PipelineDefinition } from '../definition/definition';
import { PRIORITY_LEVELS, type PriorityLevel } from '../definition/schema';
import { DEFAULT_PRIORITY, PRIORITY_KEYS, type TenantPolicy } from '../contract/tenancy';
import { priceTable, profilesOf, type TenantsConfig } from './config';

const refuse = (path: string, message: string) => new DefinitionError([{ path, message }]);

/** The lower of two levels (PRIORITY_LEVELS lists them highest first). */
function capped(asked: PriorityLevel, highest: PriorityLevel): PriorityLevel {
  return PRIORITY_LEVELS.indexOf(asked) < PRIORITY_LEVELS.indexOf(highest) ? highest : asked;
}

/** Which configured tenant the pipeline runs as; throws naming options.tenant when none. */
function tenantOf(asked: string | undefined, config: TenantsConfig): string {
  if (asked !== undefined && Object.hasOwn(config.tenants, asked)) return asked;
  if (config.defaultTenant !== undefined) return config.defaultTenant;
  throw asked === undefined
    ? refuse('options.tenant', 'is required by this worker (its tenant configuration names no defaultTenant)')
    : refuse('options.tenant', `"${asked}" is not a tenant this worker knows (REELFLOW_TENANTS_FILE)`);
}

/** Throws naming options.profile when the tenant may not spend on the definition's profile. */
function checkProfile(profile: string, tenant: string, config: TenantsConfig): void {
  const allowed = profilesOf(config, tenant);
  if (allowed === undefined || allowed.includes(profile)) return;
  throw refuse(
    'options.profile',
    `credential profile "${profile}" is not one that tenant "${tenant}" may spend on (its profiles in REELFLOW_TENANTS_FILE)`,
  );
}

/**
 * The policy, or undefined when the worker has no tenant configuration and the definition
 * names no tenant (then nothing about tenants applies, exactly as before tenants existed).
 */
export function resolveTenantPolicy(
  def: PipelineDefinition,
  config: TenantsConfig | undefined,
): TenantPolicy | undefined {
  const { tenant: asked, priority, overBudget } = def.options;
  if (!config) {
    if (asked === undefined) return undefined;
    throw refuse('options.tenant', 'this worker has no tenant configuration (REELFLOW_TENANTS_FILE): remove it');
  }
  const tenant = tenantOf(asked, config);
  checkProfile(def.options.profile, tenant, config);
  const limits = { ...config.defaults, ...config.tenants[tenant] };
  const level = capped(priority ?? DEFAULT_PRIORITY, limits.maxPriority ?? PRIORITY_LEVELS[0]);
  return {
    tenant,
    priority: level,
    priorityKey: PRIORITY_KEYS[level],
    weight: limits.weight ?? 1,
    ...(limits.concurrency !== undefined ? { concurrency: limits.concurrency } : {}),
    ...(limits.budget !== undefined ? { budget: limits.budget } : {}),
    prices: priceTable(config),
    currency: config.currency,
    utcOffsetMinutes: config.utcOffset,
    overBudget: overBudget ?? 'wait',
  };
}
