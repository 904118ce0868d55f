/**
 * The tenants' credential profiles (docs/tenants.md, "Credential profiles"): a tenant with no
 * `profiles` of its own, and none in `defaults`, may spend on every profile the worker
 * serves. That is how tenants worked before profiles could be bound, so it is a warning
 * (`!`), not a ✗: the exit code and REELFLOW_STRICT_START ignore it.
 */
import { unboundTenants, type TenantsConfig } from '../../tenants/config';
import type { WorkerConfig } from '../config';
import { pass, warn, type CheckResult } from './check';

const ID = 'tenants.profiles';
const TITLE = 'tenant credential profiles';
/** Tenants named in the detail; the rest are counted. */
const NAMED = 5;

function which(tenants: readonly string[]): string {
  const named = tenants.slice(0, NAMED).join(', ');
  const more = tenants.length > NAMED ? ` and ${tenants.length - NAMED} more` : '';
  return tenants.length === 1 ? `tenant ${named}` : `${tenants.length} tenants (${named}${more})`;
}

export function tenantProfilesCheck(config: WorkerConfig): CheckResult {
  if (!config.tenants) return pass(ID, TITLE, 'off (REELFLOW_TENANTS_FILE unset)');
  const unbound = unboundTenants(config.tenants);
  if (unbound.length === 0) return pass(ID, TITLE, 'every tenant lists the profiles it may spend on');
  return warn(
    ID,
    TITLE,
    `${which(unbound)} may spend on every credential profile (no "profiles" of their own, none in "defaults")`,
    'list in REELFLOW_TENANTS_FILE the profiles each tenant may spend on: "profiles": [...] per tenant, or in "defaults"',
  );
}

/** Tenants named in a summary; the rest are counted. */
const listed = (ids: readonly string[]) =>
  `${ids.slice(0, NAMED).join(', ')}${ids.length > NAMED ? ` and ${ids.length - NAMED} more` : ''}`;

/** What the worker does with a pipeline that names no tenant, or an unknown one (docs/tenants.md). */
function unknownTenants(config: TenantsConfig): string {
  return config.defaultTenant === undefined
    ? 'a pipeline naming no tenant or an unknown one is refused'
    : `a pipeline naming no tenant or an unknown one runs as "${config.defaultTenant}"`;
}

/**
 * REELFLOW_TENANTS_FILE as the worker read it (a file that does not parse already fails the
 * worker configuration check, naming its field): its tenants, and what happens to the others.
 */
export function tenantsFileCheck(config: WorkerConfig): CheckResult {
  const title = 'tenants file';
  if (!config.tenants) return pass('tenants.file', title, 'off (REELFLOW_TENANTS_FILE unset)');
  const ids = Object.keys(config.tenants.tenants);
  return pass('tenants.file', title, `${ids.length} tenant(s) (${listed(ids)}); ${unknownTenants(config.tenants)}`);
}
