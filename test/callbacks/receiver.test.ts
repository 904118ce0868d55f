/**
 * The callback receiver against the REAL dev server: a real worker runs a workflow that
 * waits for vendorCallbackSignal; HTTP requests go through node:http to the receiver.
 */
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { buildCallbackUrl, callbackToken } from '../../src/callbacks/token';
import { DEFAULT_GUARD_LIMITS } from '../../src/callbacks/guard';
import { startCallbackReceiver, type CallbackReceiver } from '../../src/callbacks/receiver';
import { receivedCountQuery, verdictAsksQuery } from './callback-workflows';
import { startTestWorker, type TestWorker } from './test-worker';
import { connectTemporal } from '../../src/config/temporal-connection';

const address = process.env.TEMPORAL_ADDRESS!;
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const secret = 'receiver-test-secret-0123456789';
const taskQueue = `callbacks-${process.pid}-${Date.now()}`;

let tw: TestWorker;
let client: Client;
let receiver: CallbackReceiver;
const logs: string[] = [];
let seq = 0;

beforeAll(async () => {
  tw = await startTestWorker(taskQueue);
  client = tw.client;
  receiver = await startCallbackReceiver({ host: '127.0.0.1', port: 0, secret, client, log: (l) => logs.push(l) });
});

afterAll(async () => {
  await receiver?.close();
  await tw?.close();
});

async function startWaiting(type = 'awaitCallbackWorkflow'): Promise<string> {
  const workflowId = `${taskQueue}.wf-${++seq}`;
  await client.workflow.start(type, { taskQueue, workflowId, workflowExecutionTimeout: '2m' });
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

test('a v2 URL (bound to the run) signals the run it names, so the workflow can refuse another run', async () => {
  const workflowId = await startWaiting();
  const run = (await client.workflow.getHandle(workflowId).describe()).runId;
  const res = await post(buildCallbackUrl(receiver.url, secret, workflowId, 'erase', 1, run), {
    task_id: 'er-7',
    status: 'SUCCESS',
  });
  expect(res.status).toBe(204);
  const result = await client.workflow.getHandle(workflowId).result();
  expect(result).toEqual({ step: 'erase', attempt: 1, taskId: 'er-7', status: 'SUCCESS', run });
});

test.each([
  [
    'review-b1',
    1,
    { code: 200, task_id: 'rev-9', status: 'completed', result: { items: [] } },
    { taskId: 'rev-9', status: 'completed' },
  ],
  [
    'erase',
    3,
    { task_id: 'er-1', request_id: 'rq', status: 'FAILURE', fail_reason: 'x' },
    { taskId: 'er-1', status: 'FAILURE' },
  ],
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
  const res = await post(buildCallbackUrl(receiver.url, secret, unknown, 'erase', 1), {
    task_id: 't',
    status: 'SUCCESS',
  });
  expect(res.status).toBe(410);
  expect(logs.some((l) => l.includes(unknown) && l.includes('410'))).toBe(true);

  const done = await startWaiting();
  const url = buildCallbackUrl(receiver.url, secret, done, 'erase', 1);
  expect((await post(url, { task_id: 't', status: 'SUCCESS', video_url: 'u' })).status).toBe(204);
  await client.workflow.getHandle(done).result();
  expect((await post(url, { task_id: 't', status: 'FAILURE', fail_reason: 'x' })).status).toBe(410);
  // An exact replay of what was relayed is answered from the receiver's memory: nothing to retry.
  expect((await post(url, { task_id: 't', status: 'SUCCESS', video_url: 'u' })).status).toBe(204);
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
  });
  expect(chunked.status).toBe(413);
  const health = await fetch(`${receiver.url}/healthz`);
  expect(health.status).toBe(200);

  expect(await client.workflow.getHandle(workflowId).query(receivedCountQuery)).toBe(0);
  expect(await signalEvents(workflowId)).toBe(0);
  await client.workflow.getHandle(workflowId).terminate('test done');
});

test('signalling failure gets 503 so a retrying vendor tries again; the log names where Temporal was', async () => {
  const deadConnection = await connectTemporal({ address });
  const deadClient = new Client({ connection: deadConnection, namespace });
  await deadConnection.close();
  const own: string[] = [];
  const r = await startCallbackReceiver({
    host: '127.0.0.1',
    port: 0,
    secret,
    client: deadClient,
    temporalAddress: address,
    log: (l) => (logs.push(l), own.push(l)),
  });
  try {
    const url = buildCallbackUrl(r.url, secret, 'any', 'generation', 1);
    expect((await post(url, { id: 'x', status: 'running' })).status).toBe(503);
    // Not remembered as relayed: the vendor's retry is tried again.
    expect((await post(url, { id: 'x', status: 'running' })).status).toBe(503);
  } finally {
    await r.close();
  }
  expect(own).toHaveLength(2);
  for (const line of own) expect(line).toContain(`signalling Temporal at ${address} failed`);
});

test('an exact replay of a relayed callback is answered 204 without a second signal', async () => {
  const workflowId = await startWaiting('countCallbacksWorkflow');
  const url = buildCallbackUrl(receiver.url, secret, workflowId, 'erase', 1);
  const body = { task_id: 'er-7', request_id: 'rq', status: 'IN_PROGRESS' };
  expect((await post(url, body)).status).toBe(204);
  // A replay's token goes back once its body shows it is one: 20 in a row pass a burst of 10.
  const replays = [];
  for (let i = 0; i < 20; i++) replays.push((await post(url, { ...body, extra: 'ignored' })).status);
  expect(replays).toEqual(Array(20).fill(204));
  // Another state of the same task is news.
  expect((await post(url, { ...body, status: 'SUCCESS', video_url: 'https://v/e.mp4' })).status).toBe(204);

  const handle = client.workflow.getHandle(workflowId);
  expect(await handle.query(receivedCountQuery)).toBe(2);
  expect(await signalEvents(workflowId)).toBe(2);
  await handle.terminate('test done');
});

test('each callback URL gets a burst, then 429 with Retry-After; other URLs are not affected', async () => {
  const own: string[] = [];
  const r = await startCallbackReceiver({
    host: '127.0.0.1',
    port: 0,
    secret,
    client,
    limits: { ...DEFAULT_GUARD_LIMITS, burst: 3, refillMs: 3_600_000 },
    log: (l) => own.push(l),
  });
  const workflowId = await startWaiting('countCallbacksWorkflow');
  try {
    const url = buildCallbackUrl(r.url, secret, workflowId, 'generation', 1);
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await post(url, { id: 'g-1', status: `state-${i}` }));
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 429, 429, 429, 429, 429]);
    expect(Number(answers[3].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(
      (await post(buildCallbackUrl(r.url, secret, workflowId, 'generation', 2), { id: 'g-2', status: 'queued' }))
        .status,
    ).toBe(204);
  } finally {
    await r.close();
  }
  expect(await signalEvents(workflowId)).toBe(4);
  // A flood does not flood the log: the first refusal is logged, the next ones are counted.
  expect(own.filter((l) => l.includes('(429'))).toHaveLength(1);
  await client.workflow.getHandle(workflowId).terminate('test done');
});

test("the stage's verdict is asked first: a duplicate is not signalled (204), a full step gets 429", async () => {
  const workflowId = await startWaiting('verdictCallbacksWorkflow');
  const url = buildCallbackUrl(receiver.url, secret, workflowId, 'review-b0', 1);
  expect((await post(url, { task_id: 'r-1', status: 'dup' })).status).toBe(204);
  const full = await post(url, { task_id: 'r-1', status: 'full' });
  expect(full.status).toBe(429);
  expect(full.headers.get('retry-after')).toBe('60');
  expect((await post(url, { task_id: 'r-1', status: 'processing' })).status).toBe(204);

  const handle = client.workflow.getHandle(workflowId);
  expect(await handle.query(receivedCountQuery)).toBe(1);
  expect(await signalEvents(workflowId)).toBe(1);
  await handle.terminate('test done');
});

test("verdicts that cannot change are remembered: a known task's next passing state is dropped without asking", async () => {
  const workflowId = await startWaiting('verdictCallbacksWorkflow');
  const handle = client.workflow.getHandle(workflowId);
  const run = (await handle.describe()).runId;
  const url = buildCallbackUrl(receiver.url, secret, workflowId, 'generation', 1, run);
  expect((await post(url, { id: 'g-1', status: 'queued' })).status).toBe(204);
  expect(await handle.query(verdictAsksQuery)).toBe(1);
  expect((await post(url, { id: 'g-1', status: 'running' })).status).toBe(204);
  expect(await handle.query(verdictAsksQuery)).toBe(1); // remembered: g-1 is the attempt's own task
  expect(logs.some((l) => l.includes('as the stage said before passing') && l.includes('status=running'))).toBe(true);
  // An id the stage has not called its own is still asked: it may be an offer.
  expect((await post(url, { id: 'g-2', status: 'running' })).status).toBe(204);
  expect((await post(url, { id: 'g-1', status: 'succeeded' })).status).toBe(204);
  expect(await handle.query(verdictAsksQuery)).toBe(3);
  expect(await signalEvents(workflowId)).toBe(1);
  await handle.terminate('test done');
});

describe('a stage that cannot answer in time (no worker polls its task queue)', () => {
  const idleQueue = `${taskQueue}-idle`;
  let slow: CallbackReceiver;
  const slowLogs: string[] = [];

  beforeAll(async () => {
    slow = await startCallbackReceiver({
      host: '127.0.0.1',
      port: 0,
      secret,
      client,
      log: (l) => slowLogs.push(l),
      answerWithinMs: 300,
      verdictTimeoutMs: 1_500,
      maxInFlight: 1,
      maxQueued: 0,
    });
  });
  afterAll(() => slow?.close());

  test('the vendor gets 202 at answerWithinMs, the signal follows, and a full queue answers 503', async () => {
    const workflowId = `${idleQueue}.wf-${++seq}`;
    await client.workflow.start('countCallbacksWorkflow', {
      taskQueue: idleQueue,
      workflowId,
      workflowExecutionTimeout: '2m',
    });
    const url = buildCallbackUrl(slow.url, secret, workflowId, 'generation', 1);
    const started = Date.now();
    const first = await post(url, { id: 'g-1', status: 'succeeded' });
    expect(first.status).toBe(202);
    // Answered without waiting for the verdict query, which cannot end before its 1.5 s deadline.
    expect(Date.now() - started).toBeLessThan(1_500);
    // Its one lane is busy asking, and no place is left to wait in.
    const second = await post(url, { id: 'g-1', status: 'failed' });
    expect(second.status).toBe(503);
    // The verdict query times out (no worker), so the first is signalled anyway, after its 202.
    const deadline = Date.now() + 10_000;
    while ((await signalEvents(workflowId)) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await signalEvents(workflowId)).toBe(1);
    expect(slowLogs.some((l) => l.startsWith('callback signalled:') && l.includes('status=succeeded'))).toBe(true);
    expect(slowLogs.some((l) => l.includes('(503, the vendor may retry)') && l.includes('status=failed'))).toBe(true);
    await client.workflow.getHandle(workflowId).terminate('test done');
  });
});

test('newlines and control characters in ids and bodies never split a log line', async () => {
  const raw = 'a\nb\rc\u0000d\u2028e\u0085f\u001bg\\h';
  const shown = String.raw`a\nb\rc\u0000d\u2028e\u0085f\u001bg\\h`;
  const workflowId = await startWaiting('countCallbacksWorkflow');
  const before = logs.length;
  const url = buildCallbackUrl(receiver.url, secret, workflowId, 'generation', 1);
  expect((await post(url, { id: raw, status: 'run\nning' })).status).toBe(204);
  // An unknown workflow whose id carries a newline: logged with the 410.
  const unknown = buildCallbackUrl(receiver.url, secret, `${taskQueue}\nfake log line`, 'generation', 1);
  expect((await post(unknown, { id: 'x\r\ny', status: 's' })).status).toBe(410);

  const lines = logs.slice(before);
  expect(lines).toHaveLength(2);
  for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  expect(lines[0]).toContain(`taskId=${shown} status=run\\nning`);
  expect(lines[1]).toContain(`workflowId=${taskQueue}\\nfake log line`);
  expect(lines[1]).toContain('taskId=x\\r\\ny');
  await client.workflow.getHandle(workflowId).terminate('test done');
});

test('logs never carry a token or the secret', () => {
  expect(logs.length).toBeGreaterThan(5);
  for (const line of logs) {
    expect(line).not.toMatch(/[0-9a-f]{32}/);
    expect(line).not.toContain(secret);
    expect(line).not.toContain('/callbacks/');
  }
});
