/**
 * The rest of the API on the real server (docs/api.md, "Routes"): a batch, the tenant-wide
 * stream, resolve refused when nothing waits, rerun with who did it in the memo, usage and
 * budgets read only, and the archived-file route without an archive server.
 */
import { randomUUID } from 'node:crypto';
import { until } from '../support/poll';
import { quickDefinition, readEvents, startGatewayFixture, type GatewayFixture } from '../support/gateway';

let f: GatewayFixture;
beforeAll(async () => {
  f = await startGatewayFixture();
});
afterAll(() => f?.close());

const post = (tok: string, path: string, body: unknown) =>
  f.call(tok, path, { method: 'POST', body: JSON.stringify(body) });
const enc = encodeURIComponent;

test('a batch starts each definition once, under the tenant’s batch id; the tenant-wide stream shows them', async () => {
  const batchId = `b-${randomUUID().slice(0, 8)}`;
  const body = { batchId, definitions: [quickDefinition({ name: 'one' }), quickDefinition({ name: 'two' })] };
  const stream = f.call(f.tokens.a, '/v1/events');
  const first = (await (await post(f.tokens.a, '/v1/batches', body)).json()) as {
    batchId: string;
    started: { workflowId: string }[];
  };
  expect(first.batchId).toBe(`${f.tenants.a}.${batchId}`);
  expect(first.started).toHaveLength(2);
  const again = (await (await post(f.tokens.a, '/v1/batches', body)).json()) as { alreadyStarted: unknown[] };
  expect(again.alreadyStarted).toHaveLength(2);
  const ids = new Set(first.started.map((s) => s.workflowId));
  const seen = new Set<string>();
  await readEvents(await stream, (e) => {
    const id = e.id?.slice(0, e.id.lastIndexOf(':'));
    if (id && ids.has(id)) seen.add(id);
    return seen.size === ids.size;
  });
  expect(seen).toEqual(ids);
  await until('the batch in the tenant’s list, by the batch id it gave', async () => {
    const r = (await (await f.call(f.tokens.a, `/v1/pipelines?batch=${batchId}`)).json()) as {
      pipelines: { workflowId: string }[];
    };
    return r.pipelines.length === 2 && r.pipelines.every((p) => ids.has(p.workflowId));
  });
  const other = (await (await f.call(f.tokens.b, `/v1/pipelines?batch=${batchId}`)).json()) as { pipelines: unknown[] };
  expect(other.pipelines).toEqual([]);
});

test('resolve with nothing waiting is refused as a problem; rerun records who asked', async () => {
  const { pipelineId } = (await (
    await post(f.tokens.a, '/v1/pipelines', { definition: quickDefinition() })
  ).json()) as {
    pipelineId: string;
  };
  await f.h.client.workflow.getHandle(pipelineId).result();
  const refused = await post(f.tokens.a, `/v1/pipelines/${enc(pipelineId)}/resolve`, { resubmit: true });
  expect(refused.status).toBe(409);
  expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
  const rerun = await post(f.tokens.a, `/v1/pipelines/${enc(pipelineId)}/rerun`, { from: 'erase' });
  expect(rerun.status).toBe(201);
  const { pipelineId: next } = (await rerun.json()) as { pipelineId: string };
  const d = await f.h.client.workflow.getHandle(next).describe();
  expect(d.memo).toMatchObject({ startedBy: 'alpha-ci', rerunOf: pipelineId });
  await f.h.client.workflow.getHandle(next).result();
  // Without an archive server the archived-file route says so (archive was on: files exist).
  const file = await f.call(f.tokens.a, `/v1/pipelines/${enc(pipelineId)}/archive`);
  expect(file.status).toBe(503);
});

test('usage and budgets are read only and the tenant’s own', async () => {
  const usage = (await (await f.call(f.tokens.a, '/v1/usage')).json()) as { tenants: { tenant: string }[] };
  for (const t of usage.tenants) expect(t.tenant).toBe(f.tenants.a);
  const budgets = (await (await f.call(f.tokens.b, '/v1/budgets')).json()) as { budgets: { tenant: string }[] };
  expect(budgets.budgets.map((b) => b.tenant)).toEqual([f.tenants.b]);
  const all = (await (await f.call(f.tokens.admin, '/v1/budgets')).json()) as { budgets: { tenant: string }[] };
  expect(all.budgets.map((b) => b.tenant).sort()).toEqual([f.tenants.a, f.tenants.b].sort());
  expect((await f.call(f.tokens.a, '/v1/usage', { method: 'POST' })).status).toBe(404);
});
