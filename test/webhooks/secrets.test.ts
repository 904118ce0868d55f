/** Webhook signing secrets per credential profile, from the worker's environment. */
import {
  endpointSecretKey,
  endpointSecretVariable,
  readEndpointSecrets,
  readWebhookSecrets,
  webhookSecretVariable,
} from '../../src/webhooks/secrets';

const GOOD = `whsec_${Buffer.from('a-webhook-key-of-24-bytes').toString('base64')}`;

test('one variable per profile, next to its vendor credentials', () => {
  expect(webhookSecretVariable('shop-eu')).toBe('REELFLOW_PROFILE_SHOP_EU_WEBHOOK_SECRET');
  const { secrets, problems } = readWebhookSecrets(
    ['default', 'shop-eu'],
    { REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: ` ${GOOD} ` },
    false,
  );
  expect([...secrets]).toEqual([['default', GOOD]]);
  expect(problems).toEqual([]);
});

test('required for every profile with a worker default URL; a malformed one is named, never shown', () => {
  const bad = 'whsec_plain-text-s3cret';
  const { problems } = readWebhookSecrets(['default', 'b'], { REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: bad }, true);
  expect(problems).toEqual([
    { variable: 'REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET', message: 'must be whsec_ followed by base64' },
    { variable: 'REELFLOW_PROFILE_B_WEBHOOK_SECRET', message: 'is required with REELFLOW_NOTIFY_URL (whsec_<base64>)' },
  ]);
  expect(JSON.stringify(problems)).not.toContain('s3cret');
});

test('endpoint secrets: REELFLOW_ENDPOINT_<ID>_WEBHOOK_SECRET, several while rotating, a bad one named', () => {
  const next = `whsec_${Buffer.from('the-next-key-of-24-bytes!').toString('base64')}`;
  expect(endpointSecretVariable('orders-eu')).toBe('REELFLOW_ENDPOINT_ORDERS_EU_WEBHOOK_SECRET');
  const { secrets, problems } = readEndpointSecrets({
    REELFLOW_ENDPOINT_ORDERS_EU_WEBHOOK_SECRET: `${GOOD} ${next}`,
    REELFLOW_ENDPOINT_BILLING_WEBHOOK_SECRET: `${GOOD} whsec_s3cret`,
    REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: GOOD,
  });
  expect(secrets.get(endpointSecretKey('orders-eu'))).toBe(`${GOOD} ${next}`);
  expect(secrets.size).toBe(1);
  expect(problems).toEqual([
    {
      variable: 'REELFLOW_ENDPOINT_BILLING_WEBHOOK_SECRET',
      message: 'secret 2 of 2 must be whsec_ followed by base64',
    },
  ]);
  expect(JSON.stringify(problems)).not.toContain('s3cret');
  // A profile's secret may be rotated the same way.
  const rotated = readWebhookSecrets(['default'], { REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: `${GOOD} ${next}` }, true);
  expect(rotated).toEqual({ secrets: new Map([['default', `${GOOD} ${next}`]]), problems: [] });
});
