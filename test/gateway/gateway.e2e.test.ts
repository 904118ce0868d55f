/**
 * The gateway end to end (docs/api.md): the real dev server, a real worker, the emulator as
 * vendor, and `reelflow serve`'s listener over HTTP.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { quickDefinition, readEvents, startGatewayFixture, type GatewayFixture } from '../support/gateway';
import { until } from '../support/poll';

const EventType = temporal.api.enums.v1.EventType;

let f: GatewayFixture;
beforeAll(async () => {
  f = await startGatewayFixture();
});
afterAll(() => f?.close());

const start = (tok: string, body: unknown, key?: string) =>
  f.call(tok, '/v1/pipelines', {
    method: 'POST',
    body: JSON.stringify(body),
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });

test('no token, a wrong token: 401 as problem+json', async () => {
  for (const tok of [undefined, 'x'.repeat(40)]) {
    const res = await f.call(tok, '/v1/pipelines');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
  }
});

test('an invalid definition: 422 naming each field path', async () => {
  const res = await start(f.tokens.a, { definition: { generation: { model: 'm', content: [{ type: 'nope' }] } } });
  expect(res.status).toBe(422);
  const body = (await res.json()) as { errors: { path: string }[] };
  expect(body.errors.map((e) => e.path)).toContain('generation.content[0].type');
});

test('an Idempotency-Key answers the same pipeline and never starts a second; the start is forced to the token’s tenant and records who', async () => {
  const key = `order-${randomUUID()}`;
  const def = quickDefinition({ options: { allowPrivateHosts: true, tenant: f.tenants.b } });
  const first = await start(f.tokens.a, { definition: def }, key);
  expect(first.status).toBe(201);
  const a = (await first.json()) as { pipelineId: string; created: boolean };
  expect(a).toMatchObject({ pipelineId: `reelflow:${f.tenants.a}:${key}`, created: true });
  const again = await start(f.tokens.a, { definition: def }, key);
  expect(again.status).toBe(200);
  expect(await again.json()).toMatchObject({ pipelineId: a.pipelineId, created: false });
  // Once it has ended too: the id stays refused while the namespace keeps it.
  await f.h.client.workflow.getHandle(a.pipelineId).result();
  const late = await start(f.tokens.a, { definition: def }, key);
  expect(await late.json()).toMatchObject({ pipelineId: a.pipelineId, created: false });
  const runs = [];
  for await (const wf of f.h.client.workflow.list({ query: `WorkflowId = '${a.pipelineId}'` })) runs.push(wf);
  expect(runs).toHaveLength(1);
  const d = await f.h.client.workflow.getHandle(a.pipelineId).describe();
  expect(d.memo).toMatchObject({ startedBy: 'alpha-ci' });
  const status = (await (await f.call(f.tokens.a, `/v1/pipelines/${encodeURIComponent(a.pipelineId)}`)).json()) as {
    tenant: string;
  };
  expect(status.tenant).toBe(f.tenants.a);
});

test('events: versioned snapshots on change only, then end with the result; Last-Event-ID resumes; keep-alives', async () => {
  const started = (await (await start(f.tokens.a, { definition: quickDefinition() })).json()) as { pipelineId: string };
  const path = `/v1/pipelines/${encodeURIComponent(started.pipelineId)}/events`;
  const res = await f.call(f.tokens.a, path);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const { events } = await readEvents(res);
  const end = events[events.length - 1];
  expect(end.event).toBe('end');
  expect(JSON.parse(end.data)).toMatchObject({
    kind: 'end',
    end: { status: 'completed', result: { pipelineId: started.pipelineId } },
  });
  const versions = events.map((e) => Number(e.id));
  expect([...versions].sort((x, y) => x - y)).toEqual(versions);
  expect(new Set(versions).size).toBe(versions.length);
  const statuses = events.filter((e) => e.event === 'status').map((e) => JSON.parse(e.data) as { status: unknown });
  // On change only: no two consecutive snapshots show the same thing (vendor call counters aside).
  for (let i = 1; i < statuses.length; i++) {
    const strip = (s: { status: unknown }) => JSON.stringify({ ...(s.status as object), calls: undefined });
    expect(strip(statuses[i])).not.toBe(strip(statuses[i - 1]));
  }
  // Resume after the end: only the end again (the latest is never lost), nothing older.
  const resumed = await readEvents(
    await f.call(f.tokens.a, path, { headers: { 'last-event-id': String(versions[versions.length - 2]) } }),
  );
  expect(resumed.events.map((e) => e.event)).toEqual(['end']);
});

test('a stream token opens one stream for EventSource; the bearer token never goes in the URL', async () => {
  const started = (await (await start(f.tokens.a, { definition: quickDefinition() })).json()) as { pipelineId: string };
  const id = encodeURIComponent(started.pipelineId);
  const minted = await f.call(f.tokens.a, '/v1/stream-tokens', {
    method: 'POST',
    body: JSON.stringify({ pipelineId: started.pipelineId }),
  });
  expect(minted.status).toBe(201);
  const { token } = (await minted.json()) as { token: string };
  expect(token).not.toContain(f.tokens.a);
  const res = await f.call(undefined, `/v1/pipelines/${id}/events?stream_token=${encodeURIComponent(token)}`);
  expect(res.status).toBe(200);
  const { events } = await readEvents(res);
  expect(events[events.length - 1].event).toBe('end');
  // For that stream only, and the bearer token is no stream token.
  expect((await f.call(undefined, `/v1/events?stream_token=${encodeURIComponent(token)}`)).status).toBe(401);
  expect((await f.call(undefined, `/v1/pipelines/${id}/events?stream_token=${f.tokens.a}`)).status).toBe(401);
});

test('cancel records the token’s name on the workflow’s cancel request; result then says cancelled', async () => {
  const slow = quickDefinition({
    generation: { model: 'video-model-1', content: [{ type: 'text', text: 'slow' }] },
    erase: undefined,
  });
  const started = (await (
    await start(f.tokens.a, {
      definition: { ...slow, options: { allowPrivateHosts: true, deadlines: { pipeline: '10m' } } },
    })
  ).json()) as { pipelineId: string };
  const id = encodeURIComponent(started.pipelineId);
  const res = await f.call(f.tokens.a, `/v1/pipelines/${id}/cancel`, { method: 'POST' });
  expect(res.status).toBe(202);
  await f.h.client.workflow
    .getHandle(started.pipelineId)
    .result()
    .catch(() => undefined);
  const history = await f.h.client.workflow.getHandle(started.pipelineId).fetchHistory();
  const request = history.events?.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED);
  expect(request?.workflowExecutionCancelRequestedEventAttributes?.identity).toBe('reelflow-gateway:alpha-ci');
  const result = await (await f.call(f.tokens.a, `/v1/pipelines/${id}/result`)).json();
  expect(result).toMatchObject({ status: 'cancelled' });
});

test('list: the token’s tenant only, filtered by state, paginated', async () => {
  await until('two completed pipelines of tenant a in visibility', async () => {
    const r = (await (await f.call(f.tokens.a, '/v1/pipelines?state=completed')).json()) as { pipelines: unknown[] };
    return r.pipelines.length >= 2;
  });
  const page1 = (await (await f.call(f.tokens.a, '/v1/pipelines?state=completed&pageSize=1')).json()) as {
    pipelines: { workflowId: string; tenant: string }[];
    nextPageToken?: string;
  };
  expect(page1.pipelines).toHaveLength(1);
  expect(page1.nextPageToken).toBeDefined();
  const page2 = (await (
    await f.call(f.tokens.a, `/v1/pipelines?state=completed&pageSize=1&pageToken=${page1.nextPageToken}`)
  ).json()) as { pipelines: { workflowId: string; tenant: string }[] };
  expect(page2.pipelines[0].workflowId).not.toBe(page1.pipelines[0].workflowId);
  for (const p of [...page1.pipelines, ...page2.pipelines]) expect(p.tenant).toBe(f.tenants.a);
  const b = (await (await f.call(f.tokens.b, '/v1/pipelines')).json()) as { pipelines: unknown[] };
  expect(b.pipelines).toEqual([]);
});

test('the rate limit answers 429 with Retry-After; the size limit 413', async () => {
  const tight = await startGatewayFixture({ config: { ratePerSecond: 2, maxBodyBytes: 1000 } });
  try {
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await tight.call(tight.tokens.a, '/v1/usage')).status);
    expect(codes).toContain(429);
    const limited = await tight.call(tight.tokens.a, '/v1/usage');
    if (limited.status === 429) expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1100));
    const big = await tight.call(tight.tokens.b, '/v1/pipelines', {
      method: 'POST',
      body: JSON.stringify({ definition: { name: 'x'.repeat(5000) } }),
    });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toMatch(/problem\+json/);
  } finally {
    await tight.close();
  }
});

test('/healthz is ready while Temporal answers; /metrics counts requests by route and status', async () => {
  expect((await fetch(`${f.gw.url}/healthz`)).status).toBe(200);
  const text = await (await fetch(`${f.gw.url}/metrics`)).text();
  expect(text).toMatch(/reelflow_gateway_requests_total\{route="\/v1\/pipelines",method="POST",status="201"\} \d+/);
  expect(text).toMatch(/reelflow_gateway_open_streams/);
});
