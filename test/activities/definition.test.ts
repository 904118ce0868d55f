/**
 * validateDefinition applies what only the worker knows: its default webhook URL, and
 * whether the profile has a signing secret (refused before any paid work).
 */
import { ApplicationFailure } from '@temporalio/common';
import { createDefinitionActivities } from '../../src/activities/definition';
import { FailureType } from '../../src/failures';
import { parseWebhookAllowance } from '../../src/webhooks/allowance';
import type { WebhookKey } from '../../src/webhooks/binding';
import { endpointSecretKey, readEndpointSecrets, readWebhookSecrets } from '../../src/webhooks/secrets';

const SECRET = `whsec_${Buffer.from('a-webhook-key-of-24-bytes').toString('base64')}`;
/** A profile's secret bound to every URL these tests name. */
const ANY_URL: WebhookKey = {
  secrets: SECRET,
  urls: ['https://own.example.com/', 'https://a.example.com/', 'http://127.0.0.1:9000/'],
  urlVariable: 'REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL',
};
const definition = (options: Record<string, unknown> = {}) => ({
  generation: { model: 'm', content: [{ type: 'text', text: 't' }] },
  options,
});

test('the worker default URL applies to a definition without options.notify, never over one', async () => {
  const { validateDefinition } = createDefinitionActivities({
    webhookDefaultUrl: 'https://hooks.example.com/default',
    webhookSecretFor: () => ANY_URL,
  });
  // "The worker's default": no URL in the result, which history records (its query may hold a token).
  const viaDefault = await validateDefinition({ definition: definition() });
  expect(viaDefault.options.notify).toEqual({ deliveryTimeout: '24h' });
  expect(JSON.stringify(viaDefault)).not.toContain('hooks.example.com');
  const own = await validateDefinition({ definition: definition({ notify: { url: 'https://own.example.com/x' } }) });
  expect(own.options.notify?.url).toBe('https://own.example.com/x');
  const none = createDefinitionActivities({ webhookSecretFor: () => ANY_URL }).validateDefinition;
  expect((await none({ definition: definition() })).options.notify).toBeUndefined();
});

test('no signing secret for the profile: InvalidDefinition naming options.notify.url and the variable', async () => {
  const { validateDefinition } = createDefinitionActivities({ webhookSecretFor: () => undefined });
  const err: unknown = await validateDefinition({
    definition: definition({ profile: 'shop-eu', notify: { url: 'https://own.example.com/x' } }),
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  expect((err as ApplicationFailure).type).toBe(FailureType.InvalidDefinition);
  expect((err as ApplicationFailure).message).toMatch(
    /options\.notify\.url: the worker has no webhook signing secret for credential profile "shop-eu" \(REELFLOW_PROFILE_SHOP_EU_WEBHOOK_SECRET\)/,
  );
});

test("a private webhook host only where the worker's allow-list covers it; allowPrivateHosts does not", async () => {
  const url = 'http://127.0.0.1:9000/hook';
  const of = (list: string) =>
    createDefinitionActivities({ webhookSecretFor: () => ANY_URL, webhookAllowPrivate: parseWebhookAllowance(list) })
      .validateDefinition;
  for (const list of ['0', '10.0.0.0/8,receiver']) {
    const err: unknown = await of(list)({
      definition: definition({ allowPrivateHosts: true, notify: { url } }),
    }).catch((e: unknown) => e);
    expect((err as ApplicationFailure).type).toBe(FailureType.InvalidDefinition);
    expect((err as ApplicationFailure).message).toMatch(
      /options\.notify\.url: host 127\.0\.0\.1 is a loopback address.*REELFLOW_NOTIFY_ALLOW_PRIVATE does not list it/,
    );
  }
  for (const list of ['1', '127.0.0.0/8'])
    expect((await of(list)({ definition: definition({ notify: { url } }) })).options.notify?.url).toBe(url);
});

test('an endpoint secret the worker lacks: InvalidDefinition naming options.notify.secret and its variable', async () => {
  const { validateDefinition } = createDefinitionActivities({
    webhookSecretFor: () => ANY_URL,
    endpointSecretFor: (id) => (id === 'orders' ? ANY_URL : undefined),
  });
  const notify = (secret: string) => ({
    definition: definition({ notify: { url: 'https://a.example.com/', secret } }),
  });
  expect((await validateDefinition(notify('orders'))).options.notify?.secret).toBe('orders');
  const err: unknown = await validateDefinition(notify('billing-eu')).catch((e: unknown) => e);
  expect((err as ApplicationFailure).message).toMatch(
    /options\.notify\.secret: the worker has no webhook signing secret "billing-eu" \(REELFLOW_ENDPOINT_BILLING_EU_WEBHOOK_SECRET\)/,
  );
});

describe("a secret signs only for the URLs the worker binds to it (the worker's own environment)", () => {
  const ORDERS = `whsec_${Buffer.from('the-orders-endpoint-key!').toString('base64')}`;
  const env = {
    REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: SECRET,
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET: ORDERS,
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_URL: 'https://orders.example.com/hooks/',
  };
  const endpoints = readEndpointSecrets(env).secrets;
  const profiles = readWebhookSecrets(['default'], env, false).secrets;
  const { validateDefinition } = createDefinitionActivities({
    webhookSecretFor: (profile) => profiles.get(profile),
    endpointSecretFor: (id) => endpoints.get(endpointSecretKey(id)),
  });
  const refusal = (notify: Record<string, string>) =>
    validateDefinition({ definition: definition({ notify }) }).catch((e: unknown) => e as ApplicationFailure);

  test("the orders secret named with an attacker's URL: InvalidDefinition naming options.notify.secret", async () => {
    const ok = await validateDefinition({
      definition: definition({ notify: { url: 'https://orders.example.com/hooks/reelflow', secret: 'orders' } }),
    });
    expect(ok.options.notify?.secret).toBe('orders');
    const err = await refusal({ url: 'https://attacker.example.net/collect', secret: 'orders' });
    expect((err as ApplicationFailure).type).toBe(FailureType.InvalidDefinition);
    expect((err as ApplicationFailure).message).toMatch(
      /options\.notify\.secret: webhook signing secret "orders" signs only for the URLs in REELFLOW_ENDPOINT_ORDERS_WEBHOOK_URL/,
    );
    expect((err as ApplicationFailure).message).not.toContain('attacker');
  });

  test("the profile's secret without REELFLOW_PROFILE_<NAME>_WEBHOOK_URL: the worker's default URL only", async () => {
    const err = await refusal({ url: 'https://attacker.example.net/collect' });
    expect((err as ApplicationFailure).type).toBe(FailureType.InvalidDefinition);
    expect((err as ApplicationFailure).message).toMatch(
      /options\.notify\.url: credential profile "default"'s webhook signing secret signs only for the worker's REELFLOW_NOTIFY_URL: set REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL/,
    );
  });
});
