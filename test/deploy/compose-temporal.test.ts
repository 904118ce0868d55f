/**
 * docker-compose.yml against a real cluster or Temporal Cloud (docs/deploy.md, "Docker"): every
 * Temporal connection setting comes from `.env`, the bundled server by default, and reaches the
 * worker, the cli, setup and the codec server unchanged. Checked offline with `docker-compose
 * config --env-file` (test/deploy/compose-tool.ts); and an empty setting counts as unset.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { definedEnv } from '../../src/config/startup';
import { resolveClientSettings } from '../../src/starters/client/connect';
import { composeConfig, ensureDockerCompose } from './compose-tool';

const CLIENTS = ['worker', 'receiver', 'cli', 'setup', 'codec-server', 'gateway'];

/** A Temporal Cloud `.env`: API key, TLS server name, a temporal.toml profile in the mounted folder. */
const CLOUD: Record<string, string> = {
  TEMPORAL_ADDRESS: 'reelflow-prod.a1b2c.tmprl.cloud:7233',
  TEMPORAL_NAMESPACE: 'reelflow-prod.a1b2c',
  TEMPORAL_API_KEY: 'eyJhbGciOiJFUzI1NiJ9.cloud-api-key-for-the-test',
  TEMPORAL_TLS: 'true',
  TEMPORAL_TLS_SERVER_NAME: 'reelflow-prod.a1b2c.tmprl.cloud',
  TEMPORAL_TLS_CLIENT_CERT_PATH: '/etc/reelflow/temporal/client.pem',
  TEMPORAL_TLS_CLIENT_KEY_PATH: '/etc/reelflow/temporal/client.key',
  TEMPORAL_PROFILE: 'cloud',
  TEMPORAL_CONFIG_FILE: '/etc/reelflow/temporal/temporal.toml',
};

beforeAll(() => ensureDockerCompose(), 600_000);

test('a Cloud-style .env reaches the worker, the receiver, the cli, setup, the codec server and the gateway unchanged', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-compose-env-'));
  const envFile = path.join(dir, '.env');
  writeFileSync(
    envFile,
    `${Object.entries(CLOUD)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\nREELFLOW_TEMPORAL_CONFIG_DIR=${dir}\n`,
  );
  const { services } = composeConfig({}, ['cli', 'codec'], envFile);
  for (const name of CLIENTS) {
    const env = services[name].environment ?? {};
    expect([name, Object.fromEntries(Object.keys(CLOUD).map((k) => [k, env[k]]))]).toEqual([name, CLOUD]);
    expect(services[name].volumes).toEqual(expect.arrayContaining([`${dir}:/etc/reelflow/temporal:ro`]));
  }
});

test('with no .env: the bundled server, every other setting empty (unset)', () => {
  const { services } = composeConfig({}, ['cli', 'codec']);
  for (const name of CLIENTS) {
    const env = services[name].environment ?? {};
    expect([name, env.TEMPORAL_ADDRESS, env.TEMPORAL_NAMESPACE]).toEqual([name, 'temporal:7233', 'default']);
    for (const k of Object.keys(CLOUD).filter((k) => !/ADDRESS|NAMESPACE/.test(k)))
      expect([name, k, env[k]]).toEqual([name, k, '']);
  }
});

test('an empty TEMPORAL_* is unset: no API key, no TLS towards the bundled server', () => {
  const empty = Object.fromEntries(Object.keys(CLOUD).map((k) => [k, '']));
  const env = { ...empty, TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: 'default' };
  expect(definedEnv(env)).toEqual({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: 'default' });
  const resolved = resolveClientSettings({ env });
  expect(resolved.connectionOptions.tls).toBeUndefined();
  expect(resolved.connectionOptions.apiKey).toBeUndefined();
});
