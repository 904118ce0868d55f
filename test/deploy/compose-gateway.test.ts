/**
 * The compose service `gateway` (docs/api.md, "Operations"), checked offline: its own profile,
 * `reelflow serve` on all interfaces inside and loopback outside, after Temporal is healthy,
 * ready by /healthz, its tokens from the environment and no worker role; archived files from
 * the worker's archive server with the worker's token, or presigned with the object store's key.
 */
import { activeServices, composeConfig, ensureDockerCompose } from './compose-tool';

beforeAll(() => ensureDockerCompose(), 600_000);

test('the gateway runs under its profile only, serves on loopback and is ready by /healthz', () => {
  const config = composeConfig({ REELFLOW_GATEWAY_TOKENS: '{"tokens":[]}' }, ['gateway']);
  expect(activeServices(composeConfig(), [])).not.toContain('gateway');
  const gw = config.services.gateway;
  expect(gw.profiles).toEqual(['gateway']);
  expect(gw.command).toEqual(['node', 'dist/starters/cli/main.js', 'serve', '--host', '0.0.0.0', '--port', '8080']);
  expect(gw.depends_on?.temporal).toMatchObject({ condition: 'service_healthy' });
  expect(gw.ports?.map((p) => p.replace(/\/tcp$/, ''))).toEqual(['127.0.0.1:8070:8080']);
  expect(JSON.stringify(gw.healthcheck?.test)).toContain('http://127.0.0.1:8080/healthz');
  expect(gw.environment).toMatchObject({ REELFLOW_GATEWAY_TOKENS: '{"tokens":[]}' });
  expect(Object.keys(gw.environment ?? {})).not.toContain('REELFLOW_PROFILE_DEFAULT_API_KEY'); // no vendor secrets
});

test("archived files: the worker's archive server on the compose network, its token shared read-only, the object store's key", () => {
  const store = { REELFLOW_ARCHIVE_STORE: 's3://reelflow/archive', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' };
  const { services } = composeConfig({ REELFLOW_GATEWAY_TOKENS: '{"tokens":[]}', ...store }, ['gateway']);
  const [gw, worker] = [services.gateway, services.worker];
  const url = new URL(gw.environment!.REELFLOW_ARCHIVE_URL!);
  expect(url.hostname).toBe('worker');
  expect(worker.environment).toMatchObject({ REELFLOW_ARCHIVE_HOST: '0.0.0.0', REELFLOW_ARCHIVE_PORT: url.port });
  expect((worker.ports ?? []).join(' ')).not.toContain(url.port); // not published
  expect(gw.environment!.REELFLOW_ARCHIVE_TOKEN_FILE).toBe(worker.environment!.REELFLOW_ARCHIVE_TOKEN_FILE);
  const dir = gw.environment!.REELFLOW_ARCHIVE_TOKEN_FILE!.replace(/\/[^/]+$/, '');
  expect(gw.volumes).toContain(`archive-token:${dir}:ro`);
  expect(worker.volumes).toContain(`archive-token:${dir}:rw`);
  expect(gw.environment).toMatchObject(store);
});
