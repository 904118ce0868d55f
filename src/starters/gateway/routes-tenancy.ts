/** Usage and budgets (read only), and stream tokens for EventSource (docs/api.md). */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { tenantBudgets, tenantUsage } from '../client/ledger';
import { signStreamToken } from './auth';
import type { GatewayDeps, GatewayEnv } from './context';
import { ownedPipeline, tenantScope } from './access';
import { ProblemError } from './problem';
import * as R from './schemas';

export function tenancyRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps): void {
  app.openapi(R.usageRoute, async (c) => {
    const q = c.req.valid('query');
    const tenant = tenantScope(c.get('caller'), q.tenant);
    try {
      const tenants = await tenantUsage(deps.client, {
        ...(tenant !== undefined ? { tenant } : {}),
        ...(q.since ? { since: q.since } : {}),
      });
      return c.json({ tenants }, 200);
    } catch (err) {
      if (err instanceof RangeError) throw new ProblemError(400, 'invalid-request', err.message);
      throw err;
    }
  });

  app.openapi(R.budgetsRoute, async (c) => {
    if (!deps.tenants)
      throw new ProblemError(503, 'unavailable', 'the gateway has no tenant configuration (REELFLOW_TENANTS_FILE)');
    const tenant = tenantScope(c.get('caller'), c.req.valid('query').tenant);
    // A tenant the configuration does not know has no budget: nothing, rather than an error naming others.
    if (tenant !== undefined && !Object.hasOwn(deps.tenants.tenants, tenant)) return c.json({ budgets: [] }, 200);
    const budgets = await tenantBudgets(deps.client, deps.tenants, tenant !== undefined ? { tenant } : {});
    return c.json({ budgets }, 200);
  });

  app.openapi(R.streamTokenRoute, async (c) => {
    const caller = c.get('caller');
    const body = (c.req.valid('json') as { pipelineId?: string } | undefined) ?? {};
    if (body.pipelineId !== undefined) await ownedPipeline(deps.client, caller, body.pipelineId);
    return c.json(signStreamToken(deps.config.streamSecret, caller, body.pipelineId), 201);
  });
}
