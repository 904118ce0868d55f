/**
 * validateDefinition applies what only the worker knows: its default webhook URL, and
 * whether the profile has a signing secret (refused before any paid work).
 */
import { ApplicationFailure } from '@temporalio/common';
import { createDefinitionActivities } from '../../src/activities/definition';
import { FailureType } from '../../src/failures';
import { parseWebhookAllowance } from '../../src/webhooks/allowance';

const SECRET = `whsec_${Buffer.from('a-webhook-key-of-24-bytes').toString('base64')}`;
const definition = (options: Record<string, unknown> = {}) => ({
  generation: { model: 'm', content: [{ type: 'text', text: 't' }] },
  options,
});

test('the worker default URL applies to a definition without options.notify, never over one', async () => {
  const { validateDefinition } = createDefinitionActivities({
    webhookDefaultUrl: 'https://hooks.example.com/default',
    webhookSecretFor: () => SECRET,
  });
  // "The worker's default": no URL in the result, which history records (its query may hold a token).
  const viaDefault = await validateDefinition({ definition: definition() });
  expect(viaDefault.options.notify).toEqual({ deliveryTimeout: '24h' });
  expect(JSON.stringify(viaDefault)).not.toContain('hooks.example.com');
  const own = await validateDefinition({ definition: definition({ notify: { url: 'https://own.example.com/x' } }) });
  expect(own.options.notify?.url).toBe('https://own.example.com/x');
  const none = createDefinitionActivities({ webhookSecretFor: () => SECRET }).validateDefinition;
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
    createDefinitionActivities({ webhookSecretFor: () => SECRET, webhookAllowPrivate: parseWebhookAllowance(list) })
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
    webhookSecretFor: () => SECRET,
    endpointSecretFor: (id) => (id === 'orders' ? SECRET : undefined),
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
