/**
 * docker-compose.yml for a real deployment, checked offline (no Docker engine here, so the
 * image is not run): the vendor switched by profile and .env (never by editing the file), the
 * worker's own variable names end to end, metrics on loopback, the cli's definitions folder,
 * a stop grace that covers the worker's drain, and the codec server for the Web UI.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { hostAllowList } from '../../src/codec/host-allow-list';
import { loadVendorConfig } from '../../src/vendor-api/config';
import { loadWorkerConfig } from '../../src/workers/config';
import {
  activeServices,
  composeConfig,
  ensureDockerCompose,
  ROOT,
  startedEnv,
  type ComposeConfig,
} from './compose-tool';

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const VENDOR_VARIABLES = [
  'VENDOR_BASE_URL',
  'VENDOR_IDENTITY_URL',
  'VENDOR_PATH_WORD',
  'REELFLOW_PROFILE_DEFAULT_API_KEY',
  'REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN',
];

let config: ComposeConfig;
beforeAll(() => {
  ensureDockerCompose();
  config = composeConfig();
}, 600_000);

const env = (c: ComposeConfig, service: string) => c.services[service].environment ?? {};
/** The published ports of a service as [host address, host port, container port]. */
const published = (c: ComposeConfig, service: string) =>
  (c.services[service].ports ?? []).map((p) => p.replace(/\/tcp$/, '').split(':'));

/** `.env.example`: its active assignments, and every name it mentions (commented out or not). */
function envExample(): { values: Record<string, string>; names: Set<string> } {
  const lines = read('.env.example').split('\n');
  const values = Object.fromEntries(
    lines.flatMap((l) => {
      const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l);
      return m ? [[m[1], m[2]]] : [];
    }),
  );
  const names = new Set(lines.flatMap((l) => (/^#?\s*([A-Z][A-Z0-9_]*)=/.exec(l) ?? []).slice(1)));
  return { values, names };
}

test('one naming scheme: compose reads each variable under the name the worker reads, and hands it on unchanged', () => {
  const assignments = [...read('docker-compose.yml').matchAll(/^\s+([A-Z][A-Z0-9_]*): \$\{([A-Z][A-Z0-9_]*)/gm)];
  expect(assignments.length).toBeGreaterThan(5);
  for (const [, key, variable] of assignments) expect({ key, variable }).toEqual({ key, variable: key });

  const given = Object.fromEntries(VENDOR_VARIABLES.map((v, i) => [v, `https://given-${i}.example.com`]));
  const withGiven = composeConfig(given);
  for (const service of ['worker', 'cli']) {
    for (const v of VENDOR_VARIABLES)
      expect({ service, v, value: env(withGiven, service)[v] }).toEqual({ service, v, value: given[v] });
  }
});

test('.env.example names every variable compose reads, and its values make a worker config that starts against the real vendor', () => {
  const { values, names } = envExample();
  const read_ = [...read('docker-compose.yml').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]);
  for (const variable of new Set(read_))
    expect({ variable, named: names.has(variable) }).toEqual({ variable, named: true });

  const real = composeConfig(values);
  const workerEnv = startedEnv(real.services.worker);
  const worker = loadWorkerConfig(workerEnv, { cores: 2 });
  expect(worker).toMatchObject({
    archiveAllowPrivate: false,
    strictStart: true,
    callbackBaseUrl: values.REELFLOW_CALLBACK_BASE_URL,
  });
  const vendor = loadVendorConfig(workerEnv);
  expect(vendor).toMatchObject({ baseUrl: values.VENDOR_BASE_URL, identityUrl: values.VENDOR_IDENTITY_URL });
  for (const v of VENDOR_VARIABLES) expect(env(real, 'worker')[v]).toBe(values[v]);
});

test('profiles: the emulator only in demo, the codec server only in codec, and no service waits for one its profile lacks', () => {
  const worker = config.services.worker;
  expect(Object.keys(worker.depends_on ?? {})).not.toContain('emulator');
  const started = (profiles: string[]) => activeServices(config, profiles);
  expect(started([])).toEqual(expect.arrayContaining(['temporal', 'temporal-ui', 'setup', 'worker']));
  expect(started([])).not.toEqual(expect.arrayContaining(['emulator']));
  expect(started([])).not.toContain('codec-server');
  expect(started([])).not.toContain('cli');
  expect(started(['demo'])).toContain('emulator');
  expect(started(['codec'])).toContain('codec-server');
  expect(started(['cli'])).toContain('cli');
  for (const profiles of [[], ['demo'], ['codec'], ['cli']]) {
    const c = composeConfig({}, profiles);
    const on = activeServices(c, profiles);
    for (const name of on) {
      for (const dep of Object.keys(c.services[name].depends_on ?? {}))
        expect({ profiles, name, dep, on: on.includes(dep) }).toEqual({ profiles, name, dep, on: true });
    }
  }
});

test("metrics: the worker's Prometheus endpoint and the Temporal server's, published on 127.0.0.1", () => {
  const workerPort = /:(\d+)$/.exec(env(config, 'worker').REELFLOW_METRICS_BIND ?? '')?.[1];
  expect(workerPort).toBeDefined();
  expect(published(config, 'worker')).toContainEqual(['127.0.0.1', workerPort, workerPort]);
  expect(
    loadWorkerConfig(startedEnv(config.services.worker), {
      cores: 2,
    }).metricsBind,
  ).toBe(`0.0.0.0:${workerPort}`);
  const serverPort = /^0\.0\.0\.0:(\d+)$/.exec(env(config, 'temporal').PROMETHEUS_ENDPOINT ?? '')?.[1];
  expect(serverPort).toBeDefined();
  expect(published(config, 'temporal').map(([host, , inner]) => [host, inner])).toContainEqual([
    '127.0.0.1',
    serverPort,
  ]);
});

test("the cli reads definitions from a mounted folder, read-only, and has the worker's vendor settings", () => {
  expect(config.services.cli.volumes).toContain(`${path.join(ROOT, 'definitions')}:/definitions:ro`);
  const moved = composeConfig({ REELFLOW_DEFINITIONS_DIR: '/srv/reelflow-definitions' });
  expect(moved.services.cli.volumes).toContain('/srv/reelflow-definitions:/definitions:ro');
  for (const v of VENDOR_VARIABLES)
    expect({ v, cli: env(config, 'cli')[v] }).toEqual({ v, cli: env(config, 'worker')[v] });
});

test("stop_grace_period covers the worker's drain: the server's 60 s long poll and a margin", () => {
  const grace = config.services.worker.stop_grace_period ?? '';
  const parts = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(grace);
  expect(grace).not.toBe('');
  expect(parts).not.toBeNull();
  const seconds = Number(parts![1] ?? 0) * 3600 + Number(parts![2] ?? 0) * 60 + Number(parts![3] ?? 0);
  expect(seconds).toBeGreaterThanOrEqual(60 + 20);
});

test('the codec server (profile codec): on every interface with its compose names allowed, a generated token, published on 127.0.0.1', () => {
  const codec = config.services['codec-server'];
  expect(codec).toBeDefined();
  expect(codec.profiles).toEqual(['codec']);
  const command = codec.command ?? [];
  expect(command).toEqual(expect.arrayContaining(['codec-server', '--host', '0.0.0.0']));
  const port = Number(command[command.indexOf('--port') + 1]);
  const hosts = (env(config, 'codec-server').REELFLOW_CODEC_SERVER_HOSTS ?? '').split(',').filter(Boolean);
  const allowed = hostAllowList('0.0.0.0', port, hosts);
  for (const host of [`codec-server:${port}`, `127.0.0.1:${port}`]) expect(allowed).toContain(host);
  expect(codec.entrypoint).toEqual(['with-generated-secret', 'REELFLOW_CODEC_SERVER_TOKEN']);
  const tokenFile = env(config, 'codec-server').REELFLOW_CODEC_SERVER_TOKEN_FILE ?? '';
  const stateVolume = (codec.volumes ?? []).find((v) => tokenFile.startsWith(`${v.split(':')[1]}/`));
  expect(Object.keys(config.volumes ?? {})).toContain(stateVolume?.split(':')[0]);
  expect(published(config, 'codec-server')).toContainEqual(['127.0.0.1', String(port), String(port)]);
  expect(env(config, 'codec-server')).toMatchObject({ REELFLOW_CODEC_KEYS: '', REELFLOW_CODEC_KEY_ID: '' });
});
