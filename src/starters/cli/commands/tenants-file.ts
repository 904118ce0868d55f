/** REELFLOW_TENANTS_FILE for `reelflow budget`: the worker's own file names the tenants, periods and currency. */
import { loadTenantsConfig, type TenantsConfig } from '../../../tenants/config';
import type { CommandContext } from '../output';

export function tenantsFileOf(ctx: CommandContext): TenantsConfig {
  const file = ctx.io.env.REELFLOW_TENANTS_FILE?.trim();
  if (!file)
    throw new Error(
      `${ctx.name} needs REELFLOW_TENANTS_FILE (the worker's tenant configuration): it names the tenants, their budget periods and the currency`,
    );
  return loadTenantsConfig(file);
}
