/**
 * The served OpenAPI 3.1 document against the router: every /v1 route the app answers is in
 * the document with its method, and every operation the document lists is a route. Needs no
 * server: a lazy client is never dialled.
 */
import { Client } from '@temporalio/client';
import { createGateway, OPENAPI_PATH } from '../../src/starters/gateway/app';
import { parseTokens } from '../../src/starters/gateway/config';
import pino from 'pino';
import { lazyTemporal } from '../../src/config/temporal-connection';

const config = {
  tokens: parseTokens({ tokens: [{ name: 'ops', token: 'o'.repeat(32), admin: true }] }, 'test'),
  ratePerSecond: 100,
  maxBodyBytes: 1024,
  corsOrigins: [],
  streamSecret: Buffer.alloc(32, 1),
  pollMs: 500,
};

const gateway = createGateway({
  client: new Client({ connection: lazyTemporal({ address: '127.0.0.1:1' }) }),
  config,
  log: pino({ level: 'silent' }),
});
afterAll(() => gateway.close());

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
};

async function served(): Promise<Doc> {
  const res = await gateway.app.request(OPENAPI_PATH);
  expect(res.status).toBe(200);
  return (await res.json()) as Doc;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

test('the document is OpenAPI 3.1 and lists exactly the /v1 routes, method for method', async () => {
  const doc = await served();
  expect(doc.openapi).toBe('3.1.0');
  const documented = Object.entries(doc.paths)
    .flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${p}`),
    )
    .sort();
  const routed = gateway.app.routes
    .filter((r) => r.path.startsWith('/v1/') && r.path !== OPENAPI_PATH && r.method !== 'ALL')
    .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
  expect([...new Set(routed)].sort()).toEqual(documented);
});

test('every operation is secured and documents its problems (401, 404, 429)', async () => {
  const doc = await served();
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      expect([`${m} ${p}`, op.security?.length ?? 0]).not.toEqual([`${m} ${p}`, 0]);
      for (const code of ['401', '404', '429']) expect(Object.keys(op.responses)).toContain(code);
    }
  }
});

test('a request that fails its schema is a problem naming the field', async () => {
  const res = await gateway.app.request('/v1/pipelines?pageSize=0', {
    headers: { authorization: `Bearer ${'o'.repeat(32)}` },
  });
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(await res.json()).toMatchObject({ errors: [{ path: 'pageSize' }] });
});
