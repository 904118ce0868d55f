/**
 * validateDefinition applies what only the worker knows: its default webhook URL, and
 * whether the profile has a signing secret (refused before any paid work).
 */
import { ApplicationFailure } from '@temporalio/common';
import { createDefinitionActivities } from '../../src/activities/definition';
import { FailureType } from '../../src/failures';

const SECRET = `whsec_${Buffer.from('a-webhook-key-of-24-bytes').toString('base64')}`;
const definition = (options: Record<string, unknown> = {}) => ({
  generation: { model: 'm', content: [{ type: 'text', text: 't' }] },
  options,
});

test('the worker default URL applies to a definition without options.notify, never over one', async () => {
  const { validateDefinition } = createDefinitionActivities({
    notifyDefaultUrl: 'https://hooks.example.com/default',
    webhookSecretFor: () => SECRET,
  });
  expect((await validateDefinition({ definition: definition() })).options.notify).toEqual({
    url: 'https://hooks.example.com/default',
    deliveryTimeout: '24h',
  });
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
