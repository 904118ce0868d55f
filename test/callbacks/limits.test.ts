/**
 * The receiver's resource limits (docs/operations.md "Callbacks"), against the REAL dev
 * server: what the path alone decides is answered before the body is read, bodies are
 * capped, connections are capped, a closed run chain is refused at once, and the stage's
 * `limit` is not remembered as a relayed callback.
 */
import net from 'node:net';
import type { Client } from '@temporalio/client';
import { buildCallbackUrl } from '../../src/callbacks/token';
import { DEFAULT_GUARD_LIMITS } from '../../src/callbacks/guard';
import {
  CALLBACK_BODY_LIMIT_BYTES,
  startCallbackReceiver,
  type CallbackReceiver,
  type CallbackReceiverOptions,
} from '../../src/callbacks/receiver';
import { verdictAsksQuery } from './callback-workflows';
import { startTestWorker, type TestWorker } from './test-worker';

const secret = 'limits-test-secret-0123456789';
const taskQueue = `callback-limits-${process.pid}-${Date.now()}`;

let tw: TestWorker;
let client: Client;
const receivers: CallbackReceiver[] = [];
const sockets: net.Socket[] = [];
let seq = 0;

beforeAll(async () => {
  tw = await startTestWorker(taskQueue);
  client = tw.client;
});

afterEach(() => sockets.splice(0).forEach((s) => s.destroy()));

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await tw?.close();
});

async function receiver(opts: Partial<CallbackReceiverOptions> = {}, logs: string[] = []): Promise<CallbackReceiver> {
  const r = await startCallbackReceiver({
    host: '127.0.0.1',
    port: 0,
    secret,
    client,
    log: (l) => logs.push(l),
    ...opts,
  });
  receivers.push(r);
  return r;
}

async function startWorkflow(type: string): Promise<{ workflowId: string; run: string }> {
  const workflowId = `${taskQueue}.wf-${++seq}`;
  const handle = await client.workflow.start(type, { taskQueue, workflowId, workflowExecutionTimeout: '2m' });
  return { workflowId, run: handle.firstExecutionRunId };
}

/** Relayed: 204, or 202 when the stage's first answer takes longer than answerWithinMs (a worker just started). */
const RELAYED = [202, 204];

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/**
 * A POST whose headers are sent, then `body` and nothing more: the request never ends by
 * itself. Resolves with the status line's code, or 0 when the connection closes unanswered.
 */
function openPost(url: string, headers: Record<string, string>, body = ''): Promise<number> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    sockets.push(socket);
    let seen = '';
    socket.on('data', (d: Buffer) => {
      seen += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(seen);
      if (m) resolve(Number(m[1]));
    });
    socket.on('error', () => resolve(0));
    socket.on('close', () => resolve(0));
    const lines = Object.entries({ host: `${hostname}:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}`);
    socket.write(`POST ${pathname} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

const CHUNKED = { 'content-type': 'application/json', 'transfer-encoding': 'chunked' };

test('an empty token bucket is answered 429 before the body is read (the body never ends)', async () => {
  const logs: string[] = [];
  const r = await receiver({ limits: { ...DEFAULT_GUARD_LIMITS, burst: 1, refillMs: 3_600_000 } }, logs);
  const { workflowId } = await startWorkflow('countCallbacksWorkflow');
  const url = buildCallbackUrl(r.url, secret, workflowId, 'generation', 1);
  expect(RELAYED).toContain((await post(url, { id: 'g-1', status: 'queued' })).status);
  expect(await openPost(url, CHUNKED, '5\r\n{"id"\r\n')).toBe(429);
  expect(logs.some((l) => l.includes('(429, body unread)'))).toBe(true);
  await client.workflow.getHandle(workflowId).terminate('test done');
});

test('past maxReading bodies being read at once, a callback is answered 503 with Retry-After, unread', async () => {
  const r = await receiver({ maxReading: 1 });
  const { workflowId } = await startWorkflow('countCallbacksWorkflow');
  const held = buildCallbackUrl(r.url, secret, workflowId, 'generation', 1);
  const other = buildCallbackUrl(r.url, secret, workflowId, 'erase', 1);
  void openPost(held, CHUNKED, '5\r\n{"id"\r\n'); // holds the one place while its body trickles
  await new Promise((resolve) => setTimeout(resolve, 200)); // let its headers arrive first
  const refused = await post(other, { task_id: 'e-1', status: 'SUCCESS' });
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  await client.workflow.getHandle(workflowId).terminate('test done');
});

test('the default body limit is 64 KiB: what a vendor callback needs, with room', async () => {
  expect(CALLBACK_BODY_LIMIT_BYTES).toBe(64 * 1024);
  const r = await receiver();
  const { workflowId } = await startWorkflow('countCallbacksWorkflow');
  const url = buildCallbackUrl(r.url, secret, workflowId, 'review-b0', 1);
  expect((await post(url, { task_id: 'r-1', status: 'completed', pad: 'x'.repeat(100 * 1024) })).status).toBe(413);
  expect((await post(url, { task_id: 'r-1', status: 'completed', pad: 'x'.repeat(60 * 1024) })).status).toBeLessThan(
    300,
  );
  await client.workflow.getHandle(workflowId).terminate('test done');
});

test('past maxConnections a new connection is closed unanswered; a freed place serves again', async () => {
  const r = await receiver({ maxConnections: 2 });
  const { workflowId } = await startWorkflow('countCallbacksWorkflow');
  const url = buildCallbackUrl(r.url, secret, workflowId, 'generation', 1);
  // Two connections whose headers never end take both places.
  const slow = [0, 1].map(() => openPost(url, { 'content-type': 'application/json' }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await openPost(url, { 'content-length': '2' }, '{}')).toBe(0);
  sockets.splice(0).forEach((s) => s.destroy());
  await Promise.all(slow);
  let status = 0;
  for (let i = 0; i < 50 && status === 0; i++) status = await openPost(url, { 'content-length': '2' }, '{}');
  expect(RELAYED).toContain(status);
  await client.workflow.getHandle(workflowId).terminate('test done');
});

test('a callback for a closed run chain is answered 410 at once, its body unread, from then on', async () => {
  const logs: string[] = [];
  const r = await receiver({}, logs);
  const { workflowId, run } = await startWorkflow('awaitCallbackWorkflow');
  const url = buildCallbackUrl(r.url, secret, workflowId, 'erase', 1, run);
  expect(RELAYED).toContain((await post(url, { task_id: 't', status: 'SUCCESS' })).status);
  await client.workflow.getHandle(workflowId).result();
  expect((await post(url, { task_id: 't', status: 'FAILURE' })).status).toBe(410);
  // Known closed: refused on its headers, even with a body far over the limit that never comes.
  expect(await openPost(url, { 'content-type': 'application/json', 'content-length': String(4 << 20) })).toBe(410);
  expect(logs.some((l) => l.includes('run chain known to be closed (410, body unread)'))).toBe(true);
});

test("the stage's `limit` is not remembered: the vendor's retry of the same callback is judged afresh", async () => {
  const r = await receiver();
  const { workflowId } = await startWorkflow('verdictCallbacksWorkflow');
  const url = buildCallbackUrl(r.url, secret, workflowId, 'review-b0', 1);
  expect((await post(url, { task_id: 'r-1', status: 'full' })).status).toBe(429);
  expect((await post(url, { task_id: 'r-1', status: 'full' })).status).toBe(429);
  expect(await client.workflow.getHandle(workflowId).query(verdictAsksQuery)).toBe(2);
  await client.workflow.getHandle(workflowId).terminate('test done');
});
