/**
 * Nothing crosses tenants: every operation of the SERVED OpenAPI document is tried with
 * tenant b's token against tenant a's pipelines (one finished, one running). An operation on
 * a's pipeline answers 404 (the same as a pipeline that does not exist), and no answer (body,
 * headers, stream) names a's pipelines or a's tenant.
 */
import { randomUUID } from 'node:crypto';
import { quickDefinition, startGatewayFixture, type GatewayFixture } from '../support/gateway';
import { until } from '../support/poll';

let f: GatewayFixture;
const key = `k-${randomUUID()}`;
let done: string;
let running: string;

beforeAll(async () => {
  f = await startGatewayFixture({ emulator: { profile: { generationRunningMs: 60_000 } } });
  const start = async (def: unknown, k?: string) => {
    const res = await f.call(f.tokens.a, '/v1/pipelines', {
      method: 'POST',
      body: JSON.stringify({ definition: def }),
      ...(k ? { headers: { 'idempotency-key': k } } : {}),
    });
    return ((await res.json()) as { pipelineId: string }).pipelineId;
  };
  running = await start(quickDefinition({ erase: undefined }), key);
  await until('the running pipeline in visibility', async () => {
    const r = (await (await f.call(f.tokens.a, '/v1/pipelines?state=running')).json()) as { pipelines: unknown[] };
    return r.pipelines.length > 0;
  });
  done = await start({
    ...quickDefinition({ erase: undefined }),
    review: { media: ['https://media.example.com/a.png'] },
    generation: undefined,
  });
  await f.h.client.workflow.getHandle(done).result();
});
afterAll(async () => {
  await f?.h.client.workflow
    .getHandle(running)
    .cancel()
    .catch(() => undefined);
  await f?.close();
});

type Doc = { paths: Record<string, Record<string, { requestBody?: unknown }>> };

function bodyFor(path: string): unknown {
  if (path === '/v1/pipelines') return { definition: quickDefinition() };
  if (path === '/v1/batches') return { definitions: [quickDefinition()] };
  if (path.endsWith('/resolve')) return { resubmit: true };
  if (path === '/v1/stream-tokens') return { pipelineId: running };
  return {};
}

/** The first second of an answer: a stream is cut there. */
async function firstOf(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  let text = '';
  const decoder = new TextDecoder();
  const stop = setTimeout(() => void reader.cancel().catch(() => undefined), 1_500);
  try {
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      text += decoder.decode(value as Uint8Array, { stream: true });
    }
  } catch {
    // cancelled
  } finally {
    clearTimeout(stop);
  }
  return text;
}

test('every route of the served document, with another tenant’s token, gives nothing of a’s', async () => {
  const doc = (await (await f.call(undefined, '/v1/openapi.json')).json()) as Doc;
  const tried: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) {
      for (const id of path.includes('{id}') ? [running, done] : [undefined]) {
        const url = path.replace('{id}', encodeURIComponent(id ?? ''));
        const res = await f.call(f.tokens.b, url, {
          method: method.toUpperCase(),
          ...(method === 'post' ? { body: JSON.stringify(bodyFor(path)), headers: { 'idempotency-key': key } } : {}),
        });
        const text = `${JSON.stringify([...res.headers])}\n${await firstOf(res)}`;
        tried.push(`${method} ${path} ${res.status}`);
        if (id !== undefined) expect([`${method} ${url}`, res.status]).toEqual([`${method} ${url}`, 404]);
        if (path === '/v1/stream-tokens') expect(res.status).toBe(404); // a's pipeline id: not b's to watch
        for (const secret of [running, done, f.tenants.a, encodeURIComponent(running)]) {
          expect([`${method} ${url}`, text.includes(secret)]).toEqual([`${method} ${url}`, false]);
        }
      }
    }
  }
  expect(tried.length).toBeGreaterThanOrEqual(14);
  // And the same Idempotency-Key under b's token named b's own new pipeline, not a's.
  const b = (await (await f.call(f.tokens.b, '/v1/pipelines?state=running')).json()) as {
    pipelines: { workflowId: string }[];
  };
  expect(b.pipelines.map((p) => p.workflowId)).not.toContain(running);
});

test('a stream token minted by b for a’s pipeline is refused; an admin token sees both tenants', async () => {
  const minted = await f.call(f.tokens.b, '/v1/stream-tokens', {
    method: 'POST',
    body: JSON.stringify({ pipelineId: done }),
  });
  expect(minted.status).toBe(404);
  const admin = await f.call(f.tokens.admin, `/v1/pipelines/${encodeURIComponent(done)}/result`);
  expect(admin.status).toBe(200);
});
