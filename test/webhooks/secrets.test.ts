/** Webhook signing secrets per credential profile, from the worker's environment. */
import {
  endpointSecretKey,
  endpointSecretVariable,
  endpointUrlVariable,
  readEndpointSecrets,
  readWebhookSecrets,
  webhookSecretVariable,
  webhookUrlVariable,
} from '../../src/webhooks/secrets';

const GOOD = `whsec_${Buffer.from('a-webhook-key-of-24-bytes').toString('base64')}`;

test('one variable per profile, next to its vendor credentials', () => {
  expect(webhookSecretVariable('shop-eu')).toBe('REELFLOW_PROFILE_SHOP_EU_WEBHOOK_SECRET');
  const { secrets, problems } = readWebhookSecrets(
    ['default', 'shop-eu'],
    { REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: ` ${GOOD} ` },
    false,
  );
  // Without REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL: it signs for the worker's default URL only.
  expect([...secrets]).toEqual([
    ['default', { secrets: GOOD, urls: [], urlVariable: 'REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL' }],
  ]);
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
    REELFLOW_ENDPOINT_ORDERS_EU_WEBHOOK_URL: 'https://orders.example.com/hooks/',
    REELFLOW_ENDPOINT_BILLING_WEBHOOK_SECRET: `${GOOD} whsec_s3cret`,
    REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: GOOD,
  });
  expect(secrets.get(endpointSecretKey('orders-eu'))).toEqual({
    secrets: `${GOOD} ${next}`,
    urls: ['https://orders.example.com/hooks/'],
    urlVariable: 'REELFLOW_ENDPOINT_ORDERS_EU_WEBHOOK_URL',
  });
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
  expect(rotated.secrets.get('default')?.secrets).toBe(`${GOOD} ${next}`);
  expect(rotated.problems).toEqual([]);
});

test("an endpoint's secret needs its URL beside it; a bad URL is named, never shown", () => {
  expect(endpointUrlVariable('orders-eu')).toBe('REELFLOW_ENDPOINT_ORDERS_EU_WEBHOOK_URL');
  expect(webhookUrlVariable('shop-eu')).toBe('REELFLOW_PROFILE_SHOP_EU_WEBHOOK_URL');
  const { secrets, problems } = readEndpointSecrets({
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET: GOOD,
    REELFLOW_ENDPOINT_BILLING_WEBHOOK_SECRET: GOOD,
    REELFLOW_ENDPOINT_BILLING_WEBHOOK_URL: 'https://u:s3cret@billing.example.com/',
  });
  expect(secrets.size).toBe(0);
  expect(problems).toEqual([
    {
      variable: 'REELFLOW_ENDPOINT_ORDERS_WEBHOOK_URL',
      message: 'is required with REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET: the URL or URL prefix it signs for',
    },
    { variable: 'REELFLOW_ENDPOINT_BILLING_WEBHOOK_URL', message: 'must not carry a user name or password' },
  ]);
  expect(JSON.stringify(problems)).not.toContain('s3cret');
  const profile = readWebhookSecrets(
    ['shop-eu'],
    {
      REELFLOW_PROFILE_SHOP_EU_WEBHOOK_SECRET: GOOD,
      REELFLOW_PROFILE_SHOP_EU_WEBHOOK_URL: 'https://a.example.com/hooks, https://b.example.com/x?k=1',
    },
    false,
  );
  expect(profile.secrets.get('shop-eu')?.urls).toEqual(['https://a.example.com/hooks', 'https://b.example.com/x?k=1']);
});
