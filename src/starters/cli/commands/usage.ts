/** `reelflow usage [--tenant T] [--since YYYY-MM-DD]`: spend and paid creates by tenant and stage (docs/tenants.md). */
import { formatMinorUnits } from '../../../tenants/config';
import { EXIT, table } from '../output';
import type { CommandFn } from '../session';
import { UsageError } from '../spec';
import { tenantUsage } from '../../client/ledger';

export const usage: CommandFn = async (ctx, session) => {
  const since = ctx.str('since');
  if (since !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(since))
    throw new UsageError('--since: a date YYYY-MM-DD, e.g. 2026-11-01', '--since', ctx.name);
  const tenant = ctx.str('tenant');
  const tenants = await tenantUsage(await session.client(), {
    ...(tenant ? { tenant } : {}),
    ...(since ? { since } : {}),
  });
  ctx.emit({ tenants }, () => [
    ...table(
      ['TENANT', 'STAGE', 'KIND', 'CREATES', 'SPENT'],
      tenants.flatMap((u) => [
        ...Object.entries(u.byStage).flatMap(([stage, byKind]) =>
          Object.entries(byKind).map(([kind, t]) => [
            u.tenant,
            stage,
            kind,
            t.count,
            `${formatMinorUnits(t.amount)} ${u.currency}`,
          ]),
        ),
        [u.tenant, 'total', '', '', `${formatMinorUnits(u.spent)} ${u.currency}`],
      ]),
    ),
    ...tenants
      .filter((u) => u.reserved > 0)
      .map(
        (u) =>
          `${u.tenant}: ${formatMinorUnits(u.reserved)} ${u.currency} reserved by creates in flight or not reconciled yet`,
      ),
    ...tenants.flatMap((u) =>
      u.unresolved.map(
        (r) =>
          `unresolved: ${u.tenant} ${r.stage} ${r.kind} ×${r.count} ${formatMinorUnits(r.amount)} ${u.currency} (${r.key}; its pipeline ended with the create's outcome unknown)`,
      ),
    ),
    `${tenants.length} tenant(s)${since ? ` since ${since}` : ''}`,
  ]);
  return EXIT.ok;
};
