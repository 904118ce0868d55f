/**
 * deliverWebhook in the SDK's activity test harness against a local endpoint: signed
 * headers, the failure types Temporal retries or not, the address check at send time (a
 * name resolving to loopback is refused unless the worker's allow-list covers it; the
 * definition's allowPrivateHosts does not), endpoint secrets and rotation, the deadline.
 */
import type { ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createWebhookActivities, type WebhookActivitiesOptions } from '../../src/activities/webhook';
import { FailureType } from '../../src/failures';
import { parseWebhookAllowance } from '../../src/webhooks/allowance';
import type { WebhookKey } from '../../src/webhooks/binding';
import { endpointSecretKey, readEndpointSecrets, readWebhookSecrets } from '../../src/webhooks/secrets';
import { verifyWebhook } from '../../src/webhooks/signing';
import type { WebhookInput, WebhookResult } from '../../src/contract/messages';
import { startServer, type LocalServer } from '../support/http-server';

const SECRET = `whsec_${Buffer.from('unit-test-webhook-secret-key').toString('base64')}`;
const ROTATED = `whsec_${Buffer.from('the-next-webhook-secret-key').toString('base64')}`;
const ORDERS = `whsec_${Buffer.from('the-orders-endpoint-secret').toString('base64')}`;
let server: LocalServer;
const trickling = new Set<NodeJS.Timeout>();
/** Headers at once, then one byte every 100 ms for a long time: only an overall deadline stops it. */
function trickle(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  const timer = setInterval(() => res.write('.'), 100);
  trickling.add(timer);
  res.on('close', () => (clearInterval(timer), trickling.delete(timer)));
}
let port: number;

beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.url === '/slow-body') return trickle(res);
    if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
    else res.writeHead(req.url.startsWith('/fail') ? 503 : 204).end();
  });
  port = Number(new URL(server.url).port);
});
afterAll(() => {
  trickling.forEach((t) => clearInterval(t));
  return server.close();
});
beforeEach(() => (server.requests.length = 0));

/** hooks.example.test resolves to 127.0.0.1: a public-looking name on a loopback address. */
const lookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all)
    return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  callback(null, '127.0.0.1', 4);
};

/** The worker's allow-list covering the test endpoint (127.0.0.1). */
const LOOPBACK = parseWebhookAllowance('127.0.0.1/32');

function input(url: string, over: Partial<WebhookInput> = {}): WebhookInput {
  return {
    url,
    webhookId: 'p-1:ended',
    profile: 'default',
    deliveryTimeoutMs: 60_000,
    event: {
      type: 'pipeline.completed',
      timestamp: '2026-11-26T10:00:00.000Z',
      data: { pipelineId: 'p-1', state: 'completed', stage: 'done' },
    },
    ...over,
  };
}

/** A secret as the worker reads it, bound to the test endpoints (REELFLOW_PROFILE_<NAME>_WEBHOOK_URL). */
const bound = (secrets: string, ...urls: string[]): WebhookKey => ({
  secrets,
  urls: urls.length ? urls : [`http://127.0.0.1:${port}/`, 'http://127.0.0.1:1/', `http://hooks.example.test:${port}/`],
  urlVariable: 'REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL',
});

function deliver(i: WebhookInput, opts: WebhookActivitiesOptions = {}): Promise<WebhookResult> {
  const env = new MockActivityEnvironment({ attempt: 3 }, { logger: new DefaultLogger('ERROR') });
  const { deliverWebhook } = createWebhookActivities({
    secretFor: () => bound(SECRET),
    lookup,
    allowPrivate: LOOPBACK,
    ...opts,
  });
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
  const res = await deliver(input(`http://127.0.0.1:${port}/ok`));
  expect(res).toEqual({ status: 204, attempt: 3 });
  const [r] = server.requests;
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['webhook-id']).toBe('p-1:ended');
  expect(verifyWebhook(SECRET, r.headers, r.body)).toEqual(input('').event);
});

test('a non-2xx answer and a refused connection fail retryably, naming the origin only', async () => {
  const http = await failure(deliver(input(`http://127.0.0.1:${port}/fail?token=t0k3n`)));
  expect([http.type, http.nonRetryable, http.message]).toEqual([
    FailureType.WebhookHttpError,
    false,
    `webhook http://127.0.0.1:${port} answered 503`,
  ]);
  // A redirect is an answer, not followed: the POST is never re-sent elsewhere.
  const redirect = await failure(deliver(input(`http://127.0.0.1:${port}/redirect`)));
  expect(redirect.message).toMatch(/answered 302$/);
  expect(server.requests.map((r) => r.url)).toEqual(['/fail?token=t0k3n', '/redirect']);
  const down = await failure(deliver(input('http://127.0.0.1:1/x')));
  expect([down.type, down.nonRetryable]).toEqual([FailureType.WebhookNetworkError, false]);
  expect(down.message).toBe('webhook http://127.0.0.1:1 unreachable (ECONNREFUSED)');
});

test('a name resolving to loopback is refused at send time unless the worker lists it (DNS rebinding)', async () => {
  const url = `http://hooks.example.test:${port}/ok`;
  const refused = await failure(deliver(input(url), { allowPrivate: parseWebhookAllowance('0') }));
  expect([refused.type, refused.nonRetryable]).toEqual([FailureType.WebhookAddressRefused, true]);
  expect(refused.message).toContain('hooks.example.test (resolves to 127.0.0.1)');
  expect(refused.message).toContain('REELFLOW_NOTIFY_ALLOW_PRIVATE');
  const literal = await failure(
    deliver(input(`http://127.0.0.1:${port}/ok`), { allowPrivate: parseWebhookAllowance('') }),
  );
  expect(literal.type).toBe(FailureType.WebhookAddressRefused);
  expect(server.requests).toEqual([]);
  // The worker's allow-list: the name itself, a subnet its address is in, or everything.
  for (const list of ['hooks.example.test', '127.0.0.0/8', '1'])
    expect((await deliver(input(url), { allowPrivate: parseWebhookAllowance(list) })).status).toBe(204);
  const other = await failure(deliver(input(url), { allowPrivate: parseWebhookAllowance('10.0.0.0/8,other.test') }));
  expect(other.type).toBe(FailureType.WebhookAddressRefused);
});

test("the definition's allowPrivateHosts no longer opens the worker's network", async () => {
  const open = { ...input(`http://127.0.0.1:${port}/ok`), allowPrivateHosts: true }; // as old histories carry it
  const f = await failure(deliver(open, { allowPrivate: parseWebhookAllowance('0') }));
  expect([f.type, f.nonRetryable]).toEqual([FailureType.WebhookAddressRefused, true]);
  expect(server.requests).toEqual([]);
});

test("no URL in the input: the worker's default, resolved here", async () => {
  const res = await deliver({ ...input(''), url: undefined }, { defaultUrl: `http://127.0.0.1:${port}/default?k=t` });
  expect(res.status).toBe(204);
  expect(server.requests.map((r) => r.url)).toEqual(['/default?k=t']);
  const none = await failure(deliver({ ...input(''), url: undefined }));
  expect([none.type, none.message]).toEqual([
    FailureType.WebhookAddressRefused,
    'no webhook URL: the worker has no REELFLOW_NOTIFY_URL',
  ]);
});

test("an endpoint's own secret signs; a rotation signs with both, each verifying", async () => {
  const endpointSecretFor = (id: string) => (id === 'orders' ? bound(`${ORDERS} ${ROTATED}`) : undefined);
  await deliver(input(`http://127.0.0.1:${port}/ok`, { secret: 'orders' }), { endpointSecretFor });
  const [r] = server.requests;
  const signatures = String(r.headers['webhook-signature']).split(' ');
  expect(signatures).toHaveLength(2);
  for (const secret of [ORDERS, ROTATED]) expect(verifyWebhook(secret, r.headers, r.body)).toEqual(input('').event);
  // Each signature alone verifies under its own secret only: the profile's secret signed nothing.
  const only = (sig: string) => ({ ...r.headers, 'webhook-signature': sig });
  expect(() => verifyWebhook(ORDERS, only(signatures[0]), r.body)).not.toThrow();
  expect(() => verifyWebhook(ROTATED, only(signatures[1]), r.body)).not.toThrow();
  expect(() => verifyWebhook(SECRET, r.headers, r.body)).toThrow(/no webhook-signature matches/);
  const missing = await failure(
    deliver(input(`http://127.0.0.1:${port}/ok`, { secret: 'billing' }), { endpointSecretFor }),
  );
  expect([missing.type, missing.nonRetryable]).toEqual([FailureType.MissingCredentialError, true]);
  expect(missing.message).toContain('REELFLOW_ENDPOINT_BILLING_WEBHOOK_SECRET');
});

test('an endpoint that sends headers then trickles its body is cut off at the deadline', async () => {
  const started = Date.now();
  const f = await failure(deliver(input(`http://127.0.0.1:${port}/slow-body`), { deadlineMs: 700 }));
  expect(Date.now() - started).toBeLessThan(5_000); // the idle timeout (15 s) never fires: bytes keep coming
  expect([f.type, f.nonRetryable]).toEqual([FailureType.WebhookNetworkError, false]);
  expect(f.message).toBe(`webhook http://127.0.0.1:${port} took longer than 0.7 s (REELFLOW_NOTIFY_TIMEOUT)`);
});

test('no secret for the profile: not retried, the variable named', async () => {
  const f = await failure(
    deliver(input(`http://127.0.0.1:${port}/ok`, { profile: 'shop-eu' }), { secretFor: () => undefined }),
  );
  expect([f.type, f.nonRetryable]).toEqual([FailureType.MissingCredentialError, true]);
  expect(f.message).toContain('REELFLOW_PROFILE_SHOP_EU_WEBHOOK_SECRET');
  expect(server.requests).toEqual([]);
});

test('send time: a secret named with a URL the worker does not bind to it signs and sends nothing', async () => {
  // As the worker reads them: the orders secret for /orders/ only, the profile's with no URL of its own.
  const env = {
    REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: SECRET,
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET: ORDERS,
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_URL: `http://127.0.0.1:${port}/orders/`,
  };
  const endpoints = readEndpointSecrets(env).secrets;
  const profiles = readWebhookSecrets(['default'], env, false).secrets;
  const keys: WebhookActivitiesOptions = {
    secretFor: (profile) => profiles.get(profile),
    endpointSecretFor: (id) => endpoints.get(endpointSecretKey(id)),
    defaultUrl: `http://127.0.0.1:${port}/default`,
  };
  await deliver(input(`http://127.0.0.1:${port}/orders/ok`, { secret: 'orders' }), keys);
  const endpoint = await failure(deliver(input(`http://127.0.0.1:${port}/attacker`, { secret: 'orders' }), keys));
  expect([endpoint.type, endpoint.nonRetryable]).toEqual([FailureType.WebhookEventRefused, true]);
  expect(endpoint.message).toBe(
    `webhook http://127.0.0.1:${port}: options.notify.secret: webhook signing secret "orders" signs only for the URLs in REELFLOW_ENDPOINT_ORDERS_WEBHOOK_URL, and this URL is not one of them`,
  );
  const profile = await failure(deliver(input(`http://127.0.0.1:${port}/attacker`), keys));
  expect([profile.type, profile.message]).toEqual([
    FailureType.WebhookEventRefused,
    `webhook http://127.0.0.1:${port}: options.notify.url: credential profile "default"'s webhook signing secret signs only for the worker's REELFLOW_NOTIFY_URL: set REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL to allow other URLs`,
  ]);
  await deliver({ ...input(''), url: undefined }, keys); // the worker's default: the profile's secret signs
  expect(server.requests.map((r) => r.url)).toEqual(['/orders/ok', '/default']);
});
