/**
 * doctor's webhook endpoint table (docs/doctor.md): the signing secrets read as the worker
 * reads them at start, where a bad one stops it; a ✓ names endpoints, never a secret.
 */
import { randomBytes } from 'node:crypto';
import { runDoctor, webhookEndpointsCheck } from '../../src/workers/doctor';
import { loadWorkerConfig } from '../../src/workers/config';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;

test('no webhooks configured: ✓, saying so', () => {
  expect(webhookEndpointsCheck(loadWorkerConfig({}), {})).toEqual({
    id: 'webhooks',
    title: 'webhook endpoints',
    ok: true,
    detail: 'no default URL; 0 endpoint(s); profile secrets for none; private targets: none',
  });
});

test('endpoints and a default URL: ✓ naming them, never a secret', () => {
  const orders = secret();
  const env = {
    REELFLOW_NOTIFY_URL: 'https://hooks.example.com/reelflow?token=abc',
    REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: secret(),
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET: orders,
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_URL: 'https://orders.example.com/hooks/',
    REELFLOW_NOTIFY_ALLOW_PRIVATE: '10.0.0.0/8',
  };
  const check = webhookEndpointsCheck(loadWorkerConfig(env), env);
  expect(check).toMatchObject({ ok: true });
  expect(check.detail).toBe(
    'default URL https://hooks.example.com; 1 endpoint(s) (orders); profile secrets for default; private targets: 10.0.0.0/8',
  );
  expect(JSON.stringify(check)).not.toContain(orders.slice(6));
  expect(JSON.stringify(check)).not.toContain('token=abc');
});

test('a bad endpoint secret, or a default URL without the profile secret: ✗ naming the variable, as the worker refuses to start', () => {
  const env = {
    REELFLOW_NOTIFY_URL: 'https://hooks.example.com/x',
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET: 'hunter2',
  };
  const check = webhookEndpointsCheck(loadWorkerConfig(env), env);
  expect(check).toMatchObject({ ok: false, fix: expect.stringContaining('whsec_') });
  expect(check.detail).toContain('REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET is required with REELFLOW_NOTIFY_URL');
  expect(check.detail).toContain('REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET ');
  expect(check.detail).not.toContain('hunter2');
});

test("an endpoint's secret without its URL: ✗ naming the URL variable, as the worker refuses to start", () => {
  const env = { REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET: secret() };
  const check = webhookEndpointsCheck(loadWorkerConfig(env), env);
  expect(check).toMatchObject({ ok: false, fix: expect.stringContaining('_WEBHOOK_URL') });
  expect(check.detail).toContain(
    'REELFLOW_ENDPOINT_ORDERS_WEBHOOK_URL is required with REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET',
  );
});

test('runDoctor lists both new checks after the local ones (no Temporal: its ✗ only)', async () => {
  const checks = await runDoctor({
    env: { REELFLOW_ARCHIVE_DIR: '/tmp' },
    connect: () => Promise.reject(new Error('no server here')),
  });
  const ids = checks.map((c) => c.id);
  expect(ids.slice(-3)).toEqual(['webhooks', 'tenants.file', 'tenants.profiles']);
});
