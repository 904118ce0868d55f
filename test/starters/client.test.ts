import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectClient, resolveClientSettings } from '../../src/starters/client/connect';

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-client-'));
const toml = path.join(dir, 'temporal.toml');
writeFileSync(
  toml,
  [
    '[profile.default]',
    'address = "default.example:7233"',
    '',
    '[profile.staging]',
    'address = "staging.example:7233"',
    'namespace = "staging"',
    'api_key = "k"',
  ].join('\n'),
);

test('environment variables override the config profile', () => {
  const s = resolveClientSettings({
    env: { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_ADDRESS: 'env.example:7233', TEMPORAL_NAMESPACE: 'ns1' },
  });
  expect(s.address).toBe('env.example:7233');
  expect(s.namespace).toBe('ns1');
  expect(s.connectionOptions.address).toBe('env.example:7233');
});

test('a named profile: address, namespace, API key (→ TLS)', () => {
  const s = resolveClientSettings({ env: { TEMPORAL_CONFIG_FILE: toml }, profile: 'staging' });
  expect(s).toMatchObject({ address: 'staging.example:7233', namespace: 'staging' });
  expect(s.connectionOptions.apiKey).toBe('k');
  expect(s.connectionOptions.tls).toBe(true);
  const viaEnv = resolveClientSettings({ env: { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'staging' } });
  expect(viaEnv.namespace).toBe('staging');
});

test('explicit options beat both; an unknown profile is a clear error', () => {
  const s = resolveClientSettings({
    env: { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_ADDRESS: 'env.example:1' },
    address: 'opt.example:2',
    namespace: 'n',
  });
  expect(s).toMatchObject({ address: 'opt.example:2', namespace: 'n' });
  expect(() => resolveClientSettings({ env: { TEMPORAL_CONFIG_FILE: toml }, profile: 'nope' })).toThrow(
    "Temporal client configuration: Profile 'nope' not found in config data",
  );
});

test('connects to the dev server from TEMPORAL_ADDRESS; an unreachable one names the address', async () => {
  const c = await connectClient({
    env: { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!, TEMPORAL_CONFIG_FILE: path.join(dir, 'none.toml') },
  });
  try {
    expect(c.namespace).toBe('default');
    await c.client.workflowService.getSystemInfo({});
  } finally {
    await c.close();
  }
  await expect(
    connectClient({
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_CONFIG_FILE: path.join(dir, 'none.toml') },
      connectTimeoutMs: 1_000,
    }),
  ).rejects.toThrow(/^cannot connect to Temporal at 127\.0\.0\.1:1 \(namespace default\): .*Set TEMPORAL_ADDRESS/);
});
