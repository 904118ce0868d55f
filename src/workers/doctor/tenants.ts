/**
 * The tenants' credential profiles (docs/tenants.md, "Credential profiles"): a tenant with no
 * `profiles` of its own, and none in `defaults`, may spend on every profile the worker
 * serves. That is how tenants worked before profiles could be bound, so it is a warning
 * (`!`), not a ✗: the exit code and REELFLOW_STRICT_START ignore it.
 */
import { unboundTenants } from '../../tenants/config';
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
