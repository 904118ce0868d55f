/** `reelflow budget set --tenant T --amount X [--period day|month]`: no worker restart (docs/tenants.md). */
import { formatMinorUnits, parseAmount, TenantsConfigError } from '../../../tenants/config';
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { UsageError } from '../spec';
import { setTenantBudget } from '../../client/ledger';
import { taskQueueOf } from './definition-arg';
import { tenantsFileOf } from './tenants-file';

export const budgetSet: CommandFn = async (ctx, session) => {
  const tenant = ctx.str('tenant');
  const text = ctx.str('amount');
  if (!tenant) throw new UsageError('--tenant is required', '--tenant', ctx.name);
  if (text === undefined) throw new UsageError('--amount is required', '--amount', ctx.name);
  let amount: number;
  try {
    amount = parseAmount(text, '--amount');
  } catch (err) {
    if (err instanceof TenantsConfigError) throw new UsageError(err.message, '--amount', ctx.name);
    throw err;
  }
  const config = tenantsFileOf(ctx);
  const period = ctx.str('period') as 'day' | 'month' | undefined;
  const view = await setTenantBudget(await session.client(), config, {
    tenant,
    amount,
    ...(period ? { period } : {}),
    taskQueue: taskQueueOf(ctx),
  });
  ctx.emit(view, () => [
    `tenant ${tenant}, period ${view.period}: budget ${formatMinorUnits(amount)} ${view.currency}; ` +
      `spent ${formatMinorUnits(view.spent)}, reserved ${formatMinorUnits(view.reserved)}, remaining ${formatMinorUnits(view.remaining ?? 0)}`,
  ]);
  return EXIT.ok;
};
