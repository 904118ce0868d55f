/**
 * GET /v1/pipelines/{id}/archive (docs/api.md, "Routes"): with the local archive, the file
 * streamed from the worker's archive server, whose token stays in the gateway; with an object
 * store (the test S3 server), a redirect to a GET the gateway presigned with its own key.
 */
import { createHash } from 'node:crypto';
import type { PipelineResult } from '../../src/contract/messages';
import { quickDefinition, startGatewayFixture, type GatewayFixture } from '../support/gateway';

async function completed(f: GatewayFixture): Promise<{ id: string; result: PipelineResult }> {
  const res = await f.call(f.tokens.a, '/v1/pipelines', {
    method: 'POST',
    body: JSON.stringify({ definition: quickDefinition() }),
  });
  const { pipelineId } = (await res.json()) as { pipelineId: string };
  const result = (await f.h.client.workflow.getHandle(pipelineId).result()) as PipelineResult;
  return { id: encodeURIComponent(pipelineId), result };
}

describe('with the local archive', () => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGatewayFixture({ archive: 'server' });
  });
  afterAll(() => f?.close());

  test('the file is proxied whole, its sha256 the result’s; another tenant gets 404', async () => {
    const { id, result } = await completed(f);
    const last = result.archived[result.archived.length - 1];
    const res = await f.call(f.tokens.a, `/v1/pipelines/${id}/archive`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(last.sha256);
    expect(res.headers.get('x-checksum-sha256')).toBe(last.sha256);
    const named = await f.call(f.tokens.a, `/v1/pipelines/${id}/archive?name=${result.archived[0].name}`);
    expect(named.status).toBe(200);
    await named.arrayBuffer();
    expect((await f.call(f.tokens.a, `/v1/pipelines/${id}/archive?name=nope.mp4`)).status).toBe(409);
    expect((await f.call(f.tokens.b, `/v1/pipelines/${id}/archive`)).status).toBe(404);
  });
});

describe('with an object store', () => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGatewayFixture({ archive: 'object-store' });
  });
  afterAll(() => f?.close());

  test('the route redirects to a GET the gateway presigned, which serves the object; another tenant gets 404', async () => {
    const { id, result } = await completed(f);
    const last = result.archived[result.archived.length - 1];
    expect(last.bucket).toBeDefined();
    const res = await f.call(f.tokens.a, `/v1/pipelines/${id}/archive`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname).toBe(`/${last.bucket}/${last.key}`);
    expect(location.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const object = await fetch(location);
    expect(object.status).toBe(200);
    const bytes = Buffer.from(await object.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(last.sha256);
    expect((await f.call(f.tokens.b, `/v1/pipelines/${id}/archive`, { redirect: 'manual' })).status).toBe(404);
  });
});
