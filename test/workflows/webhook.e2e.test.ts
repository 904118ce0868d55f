/**
 * Completion webhooks end to end: real dev server, real worker, the emulator over HTTP, and
 * a receiver that verifies each delivery with verifyWebhook. Every event is delivered once
 * to the receiver's logic despite retries, a late replay is refused, a down endpoint never
 * holds up or fails the pipeline. Trust boundaries: a private target only where the worker's
 * allow-list covers it (not by the definition's allowPrivateHosts), the worker's default URL
 * never in history, endpoint secrets and rotation, and a raw start of the delivery workflow
 * with a made-up event signs and sends nothing.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { FailureType } from '../../src/failures';
import { webhookDeliveries } from '../../src/starters/client/webhooks';
import {
  resolveCreateUpdate,
  statusQuery,
  vendorCallbackSignal,
  type WebhookRecord,
  type WebhookEvent,
} from '../../src/contract/messages';
import {
  expectReplays,
  rejection,
  startHarness,
  waitForStatus,
  WEBHOOK_SECRET,
  type Harness,
} from '../support/harness';
import { until } from '../support/poll';
import { cli } from '../support/cli';
import { closedPortUrl } from '../support/http-server';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { verifyWebhook } from '../../src/webhooks/signing';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createWebhookOriginActivities, type WebhookOriginInput } from '../../src/activities/webhook-origin';

const quick = { generationQueuedMs: 300, generationRunningMs: 1_000 };

const generation = (notify: { url: string; deliveryTimeout?: string }, text = 'webhook'): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text }] },
  options: { archive: false, notify },
});

/** An endpoint's own secret while it is rotated: the worker signs with both. */
const ORDERS = `whsec_${Buffer.from('orders-endpoint-secret-key').toString('base64')}`;
const ORDERS_NEXT = `whsec_${Buffer.from('orders-endpoint-next-secret').toString('base64')}`;

let h: Harness;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
/** The worker's default URL (REELFLOW_NOTIFY_URL), with a token in its query. */
let workerDefault: Awaited<ReturnType<typeof startWebhookReceiver>>;
/** On 127.0.0.2: loopback, but not in the worker's allow-list (127.0.0.1). */
let unlisted: Awaited<ReturnType<typeof startWebhookReceiver>>;
let orders: Awaited<ReturnType<typeof startWebhookReceiver>>;
/** A port nothing listens on: a down endpoint. */
let down: string;
beforeAll(async () => {
  down = await closedPortUrl();
  receiver = await startWebhookReceiver(WEBHOOK_SECRET);
  workerDefault = await startWebhookReceiver(WEBHOOK_SECRET);
  unlisted = await startWebhookReceiver(WEBHOOK_SECRET, '127.0.0.2');
  orders = await startWebhookReceiver(ORDERS);
  h = await startHarness({
    emulator: { profile: quick },
    notify: {
      allowPrivate: '127.0.0.1',
      defaultUrl: workerDefault.url.replace('token=abc', 'token=worker-s3cret-token'),
      endpointSecrets: { orders: { secrets: `${ORDERS} ${ORDERS_NEXT}`, url: `${new URL(orders.url).origin}/` } },
      // REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL: the profile's secret signs for these receivers only.
      profileUrls: [...[receiver, unlisted].map((r) => `${new URL(r.url).origin}/`), `${down}/`],
    },
  });
});
afterAll(async () => {
  await h?.close();
  for (const r of [receiver, workerDefault, unlisted, orders]) await r?.close();
});

/** A workflow's history as JSON, payloads decoded, so that a plain secret or URL would show. */
async function historyText(workflowId: string): Promise<string> {
  return JSON.stringify(await h.client.workflow.getHandle(workflowId).fetchHistory(), (k, v: unknown) =>
    k === 'data' && typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : v,
  );
}
beforeEach(() => h.emulator.reset());

test('a completed pipeline: one verified delivery despite a 500, a late replay refused', async () => {
  const { handle, result } = await h.run(generation({ url: receiver.url }));
  const webhookId = `${handle.workflowId}:ended`;
  const event = await until('the completion webhook accepted', () => receiver.accepted.get(webhookId));
  expect(event.type).toBe('pipeline.completed');
  expect(event.data.pipelineId).toBe(handle.workflowId);
  expect(event.data.result?.generation?.taskId).toBe(result.generation!.taskId);
  await expectReplays(handle); // from scratch, as a worker without it in cache would
  // The signing secret is in neither history (the pipeline's, the delivery's).
  const key = WEBHOOK_SECRET.slice('whsec_'.length);
  for (const id of [handle.workflowId, `${handle.workflowId}/notify/ended`]) {
    // Payloads come base64-encoded: decoded, so that a plain secret or URL would show.
    const history = JSON.stringify(await h.client.workflow.getHandle(id).fetchHistory(), (k, v: unknown) =>
      k === 'data' && typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : v,
    );
    expect(history).toContain(receiver.url.split('?')[0]);
    expect(history).not.toContain(key);
  }

  // The first attempt got a 500; the retry carried the same webhook-id, so the receiver acted once.
  const deliveries = receiver.deliveriesOf(webhookId);
  expect(deliveries.map((d) => d.status)).toEqual([500, 200]);
  expect(deliveries[0].body).toBe(deliveries[1].body);
  expect([...receiver.accepted.keys()].filter((id) => id.startsWith(handle.workflowId))).toEqual([webhookId]);

  // The status names the delivery workflow, and reads it as delivered on attempt 2.
  const status = await handle.query(statusQuery);
  const records = status.notifications ?? [];
  expect(records).toEqual([
    { event: 'pipeline.completed', workflowId: `${handle.workflowId}/notify/ended`, webhookId },
  ]);
  const delivered = await until('the delivery workflow completed', async () => {
    const [d] = await webhookDeliveries(h.client, records);
    return d.state === 'delivered' ? d : undefined;
  });
  expect(delivered).toMatchObject({ attempt: 2, httpStatus: 200 });
  // `reelflow status` shows it, as JSON and as a line.
  const json = await cli(['status', handle.workflowId, '--json']);
  expect(json.json().notifications).toEqual([{ ...records[0], state: 'delivered', attempt: 2, httpStatus: 200 }]);
  const human = await cli(['status', handle.workflowId]);
  expect(human.stdout).toContain(
    `webhook pipeline.completed: delivered (attempt 2; HTTP 200) · ${handle.workflowId}/notify/ended`,
  );

  // Replayed six minutes later (past the 5 min tolerance): refused. A tampered body: refused.
  const replay = async (body: string) => {
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((k) => [k, String(deliveries[1].headers[k])]),
    );
    const res = await fetch(receiver.url, { method: 'POST', headers, body });
    return { status: res.status, refused: receiver.raw[receiver.raw.length - 1].refused };
  };
  receiver.setClockOffset(6 * 60_000);
  expect(await replay(deliveries[1].body)).toEqual({ status: 400, refused: 'timestamp_out_of_tolerance' });
  receiver.setClockOffset(0);
  expect(await replay(deliveries[1].body.replace('completed', 'failed'))).toEqual({
    status: 400,
    refused: 'no_matching_signature',
  });
});

test('a down endpoint: the pipeline completes, the delivery is seen retrying, then given up', async () => {
  const url = `${down}/hook`;
  const [retrying, givenUp] = await Promise.all([
    h.run(generation({ url }, 'down endpoint')),
    h.run(generation({ url, deliveryTimeout: '2s' }, 'down endpoint, short timeout')),
  ]);
  // Both pipelines ended completed while nothing answered their webhooks.
  for (const { handle } of [retrying, givenUp]) {
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  }
  const recordsOf = async (run: typeof retrying): Promise<WebhookRecord[]> =>
    (await run.handle.query(statusQuery)).notifications ?? [];
  const pending = await until('a retried delivery', async () => {
    const [d] = await webhookDeliveries(h.client, await recordsOf(retrying));
    return d.state === 'pending' && (d.attempt ?? 0) >= 2 && d.lastError ? d : undefined;
  });
  expect(pending.lastError).toMatch(/unreachable \(ECONNREFUSED\)/);
  expect(pending.lastError).not.toContain('/hook'); // the origin only
  const human = await cli(['status', retrying.handle.workflowId]);
  expect(human.stdout).toMatch(/webhook pipeline\.completed: pending \(attempt \d+; last error: .*ECONNREFUSED/);
  const failed = await until('a delivery given up at its timeout', async () => {
    const [d] = await webhookDeliveries(h.client, await recordsOf(givenUp));
    return d.state === 'failed' ? d : undefined;
  });
  // Retries stop at the delivery timeout; the delivery fails with the last attempt's error.
  expect(failed.lastError).toMatch(/unreachable \(ECONNREFUSED\)/);
  await h.client.workflow.getHandle(pending.workflowId).terminate('test cleanup');
});

test('an operator wait sends its reason; the cancelled pipeline sends its end', async () => {
  h.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
  const handle = await h.start(generation({ url: receiver.url }, 'operator wait'));
  const waiting = (await waitForStatus(handle, (s) => s.state === 'waiting-operator')).waiting!;
  const waitId = `${handle.workflowId}:wait-${waiting.step}-${waiting.attempt}`;
  const event = await until('the operator-wait webhook', () => receiver.accepted.get(waitId));
  expect(event.type).toBe('pipeline.waiting_operator');
  expect(event.data.waiting).toMatchObject({ stage: 'generation', step: waiting.step, attempt: waiting.attempt });
  expect(event.data.waiting?.reason).toBe(waiting.reason);
  expect(event.data.waiting?.reason.length).toBeGreaterThan(20);

  await handle.cancel();
  await rejection(handle.result(), WorkflowFailedError);
  const ended = await until('the cancellation webhook', () => receiver.accepted.get(`${handle.workflowId}:ended`));
  expect(ended.type).toBe('pipeline.cancelled');
  expect(ended.data.error).toMatch(/^cancelled; vendor tasks that may still be running/);
});

test('an operator wait carried across continue-as-new is sent once', async () => {
  h.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
  const handle = await h.start({
    ...generation({ url: receiver.url }, 'carried wait'),
    options: { archive: false, historyEventsBeforeContinueAsNew: 50, notify: { url: receiver.url } },
  });
  const waiting = (await waitForStatus(handle, (s) => s.state === 'waiting-operator')).waiting!;
  const waitId = `${handle.workflowId}:wait-${waiting.step}-${waiting.attempt}`;
  await until('the operator-wait webhook', () => receiver.accepted.get(waitId));
  // Signals grow the history until the pipeline continues as new; the next run resumes the wait.
  const firstRun = (await handle.describe()).runId;
  while ((await handle.describe()).runId === firstRun) {
    await handle.signal(vendorCallbackSignal, { step: 'padding', attempt: 0 });
  }
  await waitForStatus(handle, (s) => s.state === 'waiting-operator');
  const [task] = h.emulator.inspect().generationTasks.slice(-1);
  await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: task.id } }] });
  await handle.result();
  await until('the completion webhook', () => receiver.accepted.get(`${handle.workflowId}:ended`));
  // One delivery workflow for the wait: its two attempts (500, then 200), no second start.
  expect(receiver.deliveriesOf(waitId).map((d) => d.status)).toEqual([500, 200]);
  const status = await handle.query(statusQuery);
  expect(status.notifications?.map((n) => n.event)).toEqual(['pipeline.waiting_operator', 'pipeline.completed']);
  // Both runs replay from scratch (the signals made the server refuse some workflow task
  // completions, which makes the worker replay them).
  await expectReplays(handle);
  await expectReplays(h.client.workflow.getHandle(handle.workflowId, firstRun));
});

test('a failed pipeline sends its failure type', async () => {
  h.emulator.setFaults({ 'generation.create': { expire: { next: 1 } } });
  const handle = await h.start(generation({ url: receiver.url }, 'expires'));
  await rejection(handle.result(), WorkflowFailedError);
  const ended = await until('the failure webhook', () => receiver.accepted.get(`${handle.workflowId}:ended`));
  expect(ended.type).toBe('pipeline.failed');
  expect(ended.data.failureType).toBe(FailureType.GenerationExpired);
  expect(ended.data.stage).toBe('generation');
});

test("a private target: the worker's allow-list decides, not the definition's allowPrivateHosts", async () => {
  const handle = await h.start({
    ...generation({ url: unlisted.url }),
    options: { archive: false, allowPrivateHosts: true, notify: { url: unlisted.url } },
  });
  const err = await rejection(handle.result(), WorkflowFailedError);
  expect(err.cause).toBeInstanceOf(ApplicationFailure);
  expect((err.cause as ApplicationFailure).type).toBe(FailureType.InvalidDefinition);
  expect(err.cause?.message).toMatch(
    /options\.notify\.url: host 127\.0\.0\.2 is a loopback address.*REELFLOW_NOTIFY_ALLOW_PRIVATE does not list it/,
  );
  expect((await handle.query(statusQuery)).vendorTasks).toEqual([]); // refused before any paid work
  // Listed (127.0.0.1): delivered, with the definition's flag off.
  const listed = await h.run({
    ...generation({ url: receiver.url }, 'listed target'),
    options: { archive: false, allowPrivateHosts: false, notify: { url: receiver.url } },
  });
  await until('the listed target got the webhook', () => receiver.accepted.get(`${listed.handle.workflowId}:ended`));
  expect(unlisted.raw).toEqual([]);
});

test("the worker's default URL: delivered, and in neither history", async () => {
  const { handle } = await h.run({
    generation: { model: 'video-model-1', content: [{ type: 'text', text: 'worker default' }] },
    options: { archive: false },
  });
  const webhookId = `${handle.workflowId}:ended`;
  const event = await until('the default URL got the webhook', () => workerDefault.accepted.get(webhookId));
  expect(event.type).toBe('pipeline.completed');
  expect(workerDefault.deliveriesOf(webhookId)[0]).toBeDefined();
  // Neither its path nor its query (errors name the origin only, which is not secret).
  for (const id of [handle.workflowId, `${handle.workflowId}/notify/ended`]) {
    const history = await historyText(id);
    expect(history).not.toContain('worker-s3cret-token');
    expect(history).not.toContain('/hooks/reelflow');
  }
  await expectReplays(handle);
});

test("an endpoint's own secret signs; during its rotation both signatures verify", async () => {
  const { handle } = await h.run({
    ...generation({ url: orders.url }, 'endpoint secret'),
    options: { archive: false, notify: { url: orders.url, secret: 'orders' } },
  });
  const webhookId = `${handle.workflowId}:ended`;
  await until('the endpoint verified the webhook', () => orders.accepted.get(webhookId));
  const [delivery] = orders.deliveriesOf(webhookId);
  const signatures = String(delivery.headers['webhook-signature']).split(' ');
  expect(signatures).toHaveLength(2);
  for (const [i, secret] of [ORDERS, ORDERS_NEXT].entries()) {
    const alone = { ...delivery.headers, 'webhook-signature': signatures[i] };
    expect(verifyWebhook<WebhookEvent>(secret, alone, delivery.body).data.pipelineId).toBe(handle.workflowId);
  }
  // The profile's secret, which other endpoints trust, signed nothing here.
  expect(() => verifyWebhook(WEBHOOK_SECRET, delivery.headers, delivery.body)).toThrow(/no webhook-signature matches/);
});

test('the orders secret named with another URL: refused before any paid work, nothing signed', async () => {
  const handle = await h.start({
    ...generation({ url: receiver.url }, 'borrowed secret'),
    options: { archive: false, notify: { url: receiver.url, secret: 'orders' } },
  });
  const err = await rejection(handle.result(), WorkflowFailedError);
  expect((err.cause as ApplicationFailure).type).toBe(FailureType.InvalidDefinition);
  expect(err.cause?.message).toMatch(
    /options\.notify\.secret: webhook signing secret "orders" signs only for the URLs in REELFLOW_ENDPOINT_ORDERS_WEBHOOK_URL/,
  );
  expect((await handle.query(statusQuery)).vendorTasks).toEqual([]);
  expect(receiver.raw.filter((r) => r.body.includes(handle.workflowId))).toEqual([]);
});

test('notifyWebhook started raw with a made-up event signs and sends nothing', async () => {
  // A real pipeline, so that the forgery can borrow its ids.
  const { handle } = await h.run(generation({ url: receiver.url }, 'forgery target'));
  await until('the genuine webhook', () => receiver.accepted.get(`${handle.workflowId}:ended`));
  const forged = (workflowId: string, webhookId: string) =>
    h.client.workflow.start('notifyWebhook', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [
        {
          url: unlisted.url,
          webhookId,
          profile: 'default',
          allowPrivateHosts: true,
          deliveryTimeoutMs: 60_000,
          event: {
            type: 'pipeline.completed',
            timestamp: new Date().toISOString(),
            data: { pipelineId: handle.workflowId, state: 'completed', stage: 'done', result: { forged: true } },
          },
        },
      ],
    });
  for (const [workflowId, webhookId] of [
    [`${handle.workflowId}/notify/forged`, `${handle.workflowId}:forged`],
    [`forged-${handle.workflowId}`, 'anything'],
  ]) {
    const run = await forged(workflowId, webhookId);
    const err = await rejection(run.result(), WorkflowFailedError);
    const cause = err.cause?.cause as ApplicationFailure | undefined;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(FailureType.WebhookEventRefused);
    expect(cause?.message).toMatch(/not started by a videoPipeline/);
  }
  expect(unlisted.raw).toEqual([]);
  expect(receiver.raw.filter((r) => String(r.headers['webhook-id']).includes('forged'))).toEqual([]);
});

test("the origin check: the genuine event passes; one that differs from the pipeline's own is refused", async () => {
  const { handle } = await h.run(generation({ url: receiver.url }, 'origin check'));
  const pid = handle.workflowId;
  const genuine = await until('the genuine webhook', () => receiver.accepted.get(`${pid}:ended`));
  const { runId } = await handle.describe();
  const { confirmDeliveryOrigin } = createWebhookOriginActivities();
  const check = (over: Partial<WebhookOriginInput>, key = 'ended', childId = `${pid}/notify/${key}`) =>
    new MockActivityEnvironment(
      { workflowExecution: { workflowId: childId, runId: 'r' } },
      { client: h.client, logger: new DefaultLogger('ERROR') },
    ).run(confirmDeliveryOrigin, {
      parent: { workflowId: pid, runId },
      webhookId: `${pid}:${key}`,
      url: receiver.url,
      event: genuine,
      ...over,
    });
  await expect(check({})).resolves.toBeUndefined();
  const data = genuine.data;
  const waiting = {
    workflowId: pid,
    stage: 'generation' as const,
    step: 'generation',
    attempt: 1,
    reason: 'r',
    since: '',
  };
  // One at a time: a closed pipeline answers queries by replay, on one worker.
  const deliveryRunId = (await h.client.workflow.getHandle(`${pid}/notify/ended`).describe()).runId;
  const cases: [() => Promise<unknown>, RegExp][] = [
    [
      () => check({ event: { ...genuine, data: { ...data, result: { ...data.result!, archived: [], calls: {} } } } }),
      /result differs/,
    ],
    [
      () => check({ event: { ...genuine, type: 'pipeline.failed', data: { ...data, state: 'failed' } } }),
      /is completed, not/,
    ],
    [() => check({ url: unlisted.url }), /target is not/],
    [() => check({ secret: 'orders' }), /target is not/],
    [() => check({ webhookId: `${pid}:other` }), /do not follow/],
    [
      () =>
        check(
          { event: { ...genuine, type: 'pipeline.waiting_operator', data: { ...data, waiting } } },
          'wait-generation-1',
        ),
      /does not wait, nor waited/,
    ],
    [() => check({ event: { ...genuine, data: { ...data, pipelineId: 'another' } } }), /names another pipeline/],
    // A parent that is not a videoPipeline (here: the delivery workflow itself).
    [
      () =>
        check(
          {
            parent: {
              workflowId: `${pid}/notify/ended`,
              runId: deliveryRunId,
            },
            webhookId: `${pid}/notify/ended:ended`,
            event: { ...genuine, data: { ...data, pipelineId: `${pid}/notify/ended` } },
          },
          'ended',
          `${pid}/notify/ended/notify/ended`,
        ),
      /the parent is a notifyWebhook, not a videoPipeline/,
    ],
  ];
  for (const [run, message] of cases) {
    const err: unknown = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect([(err as ApplicationFailure).type, (err as ApplicationFailure).nonRetryable]).toEqual([
      FailureType.WebhookEventRefused,
      true,
    ]);
    expect((err as Error).message).toMatch(message);
  }
});
