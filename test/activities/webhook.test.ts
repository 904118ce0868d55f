/**
 * deliverWebhook in the SDK's activity test harness against a local endpoint: signed
 * headers, the failure types Temporal retries or not, and the address check at send time
 * (a name resolving to loopback is refused unless the definition or the worker opted in).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createWebhookActivities, type WebhookActivitiesOptions } from '../../src/activities/webhook';
import { FailureType } from '../../src/failures';
import { verifyWebhook } from '../../src/webhooks/signing';
import type { NotifyInput, NotifyResult } from '../../src/workflows/messages';

const SECRET = `whsec_${Buffer.from('unit-test-webhook-secret-key').toString('base64')}`;
let server: Server;
let port: number;
const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
      else res.writeHead(req.url?.startsWith('/fail') ? 503 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => (received.length = 0));

/** hooks.example.test resolves to 127.0.0.1: a public-looking name on a loopback address. */
const lookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all)
    return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  callback(null, '127.0.0.1', 4);
};

function input(url: string, over: Partial<NotifyInput> = {}): NotifyInput {
  return {
    url,
    webhookId: 'p-1:ended',
    profile: 'default',
    allowPrivateHosts: false,
    deliveryTimeoutMs: 60_000,
    event: {
      type: 'pipeline.completed',
      timestamp: '2026-11-26T10:00:00.000Z',
      data: { pipelineId: 'p-1', state: 'completed', stage: 'done' },
    },
    ...over,
  };
}

function deliver(i: NotifyInput, opts: WebhookActivitiesOptions = {}): Promise<NotifyResult> {
  const env = new MockActivityEnvironment({ attempt: 3 }, { logger: new DefaultLogger('ERROR') });
  const { deliverWebhook } = createWebhookActivities({ secretFor: () => SECRET, lookup, ...opts });
  return env.run(deliverWebhook, i);
}

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err instanceof ApplicationFailure) return err;
  throw new Error(`expected an ApplicationFailure, got ${String(err)}`);
}

test('a 2xx delivers: signed headers that verifyWebhook accepts, the attempt reported', async () => {
  const res = await deliver(input(`http://127.0.0.1:${port}/ok`, { allowPrivateHosts: true }));
  expect(res).toEqual({ status: 204, attempt: 3 });
  const [r] = received;
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['webhook-id']).toBe('p-1:ended');
  expect(verifyWebhook(SECRET, r.headers, r.body)).toEqual(input('').event);
});

test('a non-2xx answer and a refused connection fail retryably, naming the origin only', async () => {
  const http = await failure(deliver(input(`http://127.0.0.1:${port}/fail?token=t0k3n`, { allowPrivateHosts: true })));
  expect([http.type, http.nonRetryable, http.message]).toEqual([
    FailureType.WebhookHttpError,
    false,
    `webhook http://127.0.0.1:${port} answered 503`,
  ]);
  // A redirect is an answer, not followed: the POST is never re-sent elsewhere.
  const redirect = await failure(deliver(input(`http://127.0.0.1:${port}/redirect`, { allowPrivateHosts: true })));
  expect(redirect.message).toMatch(/answered 302$/);
  expect(received.map((r) => r.path)).toEqual(['/fail?token=t0k3n', '/redirect']);
  const down = await failure(deliver(input('http://127.0.0.1:1/x', { allowPrivateHosts: true })));
  expect([down.type, down.nonRetryable]).toEqual([FailureType.WebhookNetworkError, false]);
  expect(down.message).toBe('webhook http://127.0.0.1:1 unreachable (ECONNREFUSED)');
});

test('a name resolving to loopback is refused at send time unless opted in (DNS rebinding)', async () => {
  const url = `http://hooks.example.test:${port}/ok`;
  const refused = await failure(deliver(input(url)));
  expect([refused.type, refused.nonRetryable]).toEqual([FailureType.WebhookAddressRefused, true]);
  expect(refused.message).toContain('hooks.example.test (resolves to 127.0.0.1)');
  const literal = await failure(deliver(input(`http://127.0.0.1:${port}/ok`)));
  expect(literal.type).toBe(FailureType.WebhookAddressRefused);
  expect(received).toEqual([]);
  // The definition's opt-in, or the worker's own default URL with the worker's opt-in.
  expect((await deliver(input(url, { allowPrivateHosts: true }))).status).toBe(204);
  expect((await deliver(input(url), { defaultUrl: url, defaultAllowPrivate: true })).status).toBe(204);
  const otherUrl = await failure(deliver(input(url), { defaultUrl: `${url}/other`, defaultAllowPrivate: true }));
  expect(otherUrl.type).toBe(FailureType.WebhookAddressRefused);
});

test('no secret for the profile: not retried, the variable named', async () => {
  const f = await failure(
    deliver(input(`http://127.0.0.1:${port}/ok`, { profile: 'shop-eu' }), { secretFor: () => undefined }),
  );
  expect([f.type, f.nonRetryable]).toEqual([FailureType.MissingCredentialError, true]);
  expect(f.message).toContain('REELFLOW_PROFILE_SHOP_EU_WEBHOOK_SECRET');
  expect(received).toEqual([]);
});
