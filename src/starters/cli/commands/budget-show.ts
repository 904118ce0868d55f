/** `reelflow budget show [--tenant T]`: each tenant's budget for its current period (docs/tenants.md). */
import { formatMinorUnits } from '../../../tenants/config';
import { EXIT, table } from '../output';
import type { CommandFn } from '../session';
import { tenantBudgets } from '../../client/ledger';
import { tenantsFileOf } from './tenants-file';

export const budgetShow: CommandFn = async (ctx, session) => {
  const config = tenantsFileOf(ctx);
  const tenant = ctx.str('tenant');
  const budgets = await tenantBudgets(await session.client(), config, tenant ? { tenant } : {});
  const money = (m: number | undefined) => (m === undefined ? 'none' : formatMinorUnits(m));
  ctx.emit({ currency: config.currency, budgets }, () => [
    ...table(
      ['TENANT', 'PERIOD', 'CONFIGURED', 'BUDGET', 'SPENT', 'RESERVED', 'REMAINING'],
      budgets.map((b) => [
        b.tenant,
        b.period,
        money(b.configured),
        money(b.budget),
        money(b.spent),
        money(b.reserved),
        money(b.remaining),
      ]),
    ),
    `amounts in ${config.currency}`,
  ]);
  return EXIT.ok;
};
