/**
 * The callback receiver against the REAL dev server: a real worker runs a workflow that
 * waits for vendorCallbackSignal; HTTP requests go through node:http to the receiver.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { buildCallbackUrl, callbackToken } from '../../src/callbacks/token';
import { startCallbackReceiver, type CallbackReceiver } from '../../src/callbacks/receiver';
import { receivedCountQuery } from './callback-workflows';

const address = process.env.TEMPORAL_ADDRESS!;
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const secret = 'receiver-test-secret-0123456789';
const taskQueue = `callbacks-${process.pid}-${Date.now()}`;

let nativeConnection: NativeConnection;
let connection: Connection;
let client: Client;
let worker: Worker;
let workerRun: Promise<void>;
let receiver: CallbackReceiver;
const logs: string[] = [];
let seq = 0;

beforeAll(async () => {
  nativeConnection = await NativeConnection.connect({ address });
  worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('./callback-workflows'),
  });
  workerRun = worker.run();
  connection = await Connection.connect({ address });
  client = new Client({ connection, namespace });
  receiver = await startCallbackReceiver({ host: '127.0.0.1', port: 0, secret, client, log: (l) => logs.push(l) });
});

afterAll(async () => {
  await receiver?.close();
  worker?.shutdown();
  await workerRun;
  await connection?.close();
  await nativeConnection?.close();
});

async function startWaiting(): Promise<string> {
  const workflowId = `${taskQueue}.wf-${++seq}`;
  await client.workflow.start('awaitCallbackWorkflow', { taskQueue, workflowId, workflowExecutionTimeout: '2m' });
  return workflowId;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function signalEvents(workflowId: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
  ).length;
}

test('a good generation callback signals the workflow, which completes with what it got', async () => {
  const workflowId = await startWaiting();
  const url = buildCallbackUrl(receiver.url, secret, workflowId, 'generation', 2);
  const res = await post(url, { id: 'gen-task-1', status: 'succeeded', video_url: 'https://v/x.mp4', extra: 1 });
  expect(res.status).toBe(204);
  const result = await client.workflow.getHandle(workflowId).result();
  expect(result).toEqual({ step: 'generation', attempt: 2, taskId: 'gen-task-1', status: 'succeeded' });
});

test.each([
  ['review-b1', 1, { code: 200, task_id: 'rev-9', status: 'completed', result: { items: [] } }, { taskId: 'rev-9', status: 'completed' }],
  ['erase', 3, { task_id: 'er-1', request_id: 'rq', status: 'FAILURE', fail_reason: 'x' }, { taskId: 'er-1', status: 'FAILURE' }],
  // Shapes outside the schemas: read loosely by field name, or nothing (still a hint).
  ['generation', 1, { id: 'g-2', status: 'some-new-state' }, { taskId: 'g-2', status: 'some-new-state' }],
  ['generation', 1, ['not', 'an', 'object'], {}],
])('%s callback: task id and status are read per step kind', async (step, attempt, body, expected) => {
  const workflowId = await startWaiting();
  const res = await post(buildCallbackUrl(receiver.url, secret, workflowId, step, attempt), body);
  expect(res.status).toBe(204);
  expect(await client.workflow.getHandle(workflowId).result()).toEqual({ step, attempt, ...expected });
});

test('a bad token gets 401 and the workflow receives nothing', async () => {
  const workflowId = await startWaiting();
  const good = buildCallbackUrl(receiver.url, secret, workflowId, 'generation', 1);
  const token = good.split('/').pop()!;
  const bad = [
    good.replace(token, `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`),
    buildCallbackUrl(receiver.url, 'some-other-secret-0123456789', workflowId, 'generation', 1),
    // a real token of attempt 1 replayed against attempt 2, and one of another workflow
    good.replace('/generation/1/', '/generation/2/'),
    `${receiver.url}/callbacks/${encodeURIComponent(workflowId)}/generation/1/${callbackToken(secret, 'other', 'generation', 1)}`,
    good.replace(token, ''),
  ];
  for (const url of bad) {
    const res = await post(url, { id: 'forged', status: 'succeeded' });
    expect(res.status).toBe(401);
  }

  const handle = client.workflow.getHandle(workflowId);
  expect(await handle.query(receivedCountQuery)).toBe(0);
  expect(await signalEvents(workflowId)).toBe(0);
  expect((await handle.describe()).status.name).toBe('RUNNING');

  // The genuine callback still works afterwards.
  expect((await post(good, { id: 'real', status: 'running' })).status).toBe(204);
  expect(await handle.result()).toEqual({ step: 'generation', attempt: 1, taskId: 'real', status: 'running' });
  expect(await signalEvents(workflowId)).toBe(1);
});

test('an unknown or closed workflow gets 410', async () => {
  const unknown = `${taskQueue}.never-started`;
  const res = await post(buildCallbackUrl(receiver.url, secret, unknown, 'erase', 1), { task_id: 't', status: 'SUCCESS' });
  expect(res.status).toBe(410);
  expect(logs.some((l) => l.includes(unknown) && l.includes('410'))).toBe(true);

  const done = await startWaiting();
  const url = buildCallbackUrl(receiver.url, secret, done, 'erase', 1);
  expect((await post(url, { task_id: 't', status: 'SUCCESS', video_url: 'u' })).status).toBe(204);
  await client.workflow.getHandle(done).result();
  expect((await post(url, { task_id: 't', status: 'SUCCESS', video_url: 'u' })).status).toBe(410);
});

test('malformed path 404, wrong method 405, non-JSON 400, oversized 413, healthz 200 — none signals', async () => {
  const workflowId = await startWaiting();
  const url = buildCallbackUrl(receiver.url, secret, workflowId, 'review-b0', 1);

  expect((await post(`${receiver.url}/callbacks/${workflowId}/review-b0`, {})).status).toBe(404);
  expect((await post(`${receiver.url}/elsewhere`, {})).status).toBe(404);
  expect((await fetch(url)).status).toBe(405);
  expect((await post(url, '{not json')).status).toBe(400);
  expect((await post(url, '')).status).toBe(400);
  const big = JSON.stringify({ task_id: 't', status: 'completed', pad: 'x'.repeat(1024 * 1024) });
  expect((await post(url, big)).status).toBe(413);
  // The same without a content-length (chunked): the limit holds while streaming.
  const chunked = await fetch(url, {
    method: 'POST',
    body: new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('x'.repeat(100 * 1024)));
        c.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  expect(chunked.status).toBe(413);
  const health = await fetch(`${receiver.url}/healthz`);
  expect(health.status).toBe(200);

  expect(await client.workflow.getHandle(workflowId).query(receivedCountQuery)).toBe(0);
  expect(await signalEvents(workflowId)).toBe(0);
  await client.workflow.getHandle(workflowId).terminate('test done');
});

test('signalling failure gets 503 so a retrying vendor tries again', async () => {
  const deadConnection = await Connection.connect({ address });
  const deadClient = new Client({ connection: deadConnection, namespace });
  await deadConnection.close();
  const r = await startCallbackReceiver({ host: '127.0.0.1', port: 0, secret, client: deadClient, log: (l) => logs.push(l) });
  try {
    const res = await post(buildCallbackUrl(r.url, secret, 'any', 'generation', 1), { id: 'x', status: 'running' });
    expect(res.status).toBe(503);
  } finally {
    await r.close();
  }
});

test('logs never carry a token or the secret', () => {
  expect(logs.length).toBeGreaterThan(5);
  for (const line of logs) {
    expect(line).not.toMatch(/[0-9a-f]{32}/);
    expect(line).not.toContain(secret);
    expect(line).not.toContain('/callbacks/');
  }
});
