/**
 * docker-compose.yml, checked offline (no Docker engine on these machines): it parses and
 * interpolates with no variable set, starts in the right order, every service that others
 * wait on has a healthcheck, ports stay on loopback, the archive is a volume the image's
 * user can write, and the compose commands in docs/deploy.md name what the file has.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { findCommand } from '../../src/starters/cli/spec';
import { loadWorkerConfig, WorkerConfigError } from '../../src/workers/config';
import { loadReceiverConfig } from '../../src/callbacks/config';
import {
  composeConfig,
  ensureDockerCompose,
  GENERATED_SECRETS,
  ROOT,
  startedEnv,
  type ComposeConfig,
  type ComposeService,
} from './compose-tool';

let config: ComposeConfig;
let services: Record<string, ComposeService>;

beforeAll(() => {
  ensureDockerCompose();
  config = composeConfig();
  services = config.services;
}, 600_000);

const ONE_SHOTS = ['temporal-admin-tools', 'temporal-create-namespace', 'setup'];
const healthTest = (name: string) => (services[name]?.healthcheck?.test ?? []).join(' ');
const dependsOn = (name: string) =>
  Object.fromEntries(Object.entries(services[name]?.depends_on ?? {}).map(([dep, d]) => [dep, d.condition]));

test('the file is valid with no variable set (the CLI needs no secret)', () => {
  expect(Object.keys(services)).toEqual(
    expect.arrayContaining(['postgresql', 'temporal', 'temporal-ui', 'emulator', 'worker', 'cli', ...ONE_SHOTS]),
  );
  expect(services.worker.environment!.REELFLOW_CALLBACK_SECRET ?? '').toBe('');
});

test('no published secret: the emulator control token, like the callback secret, is generated at first start', () => {
  for (const [name, variables] of [
    ['emulator', ['EMULATOR_CONTROL_TOKEN']],
    ['worker', ['REELFLOW_CALLBACK_SECRET', 'REELFLOW_ARCHIVE_TOKEN']],
    ['receiver', ['REELFLOW_CALLBACK_SECRET']],
    ['gateway', ['REELFLOW_ARCHIVE_TOKEN']],
  ] as const) {
    const service = services[name];
    expect(service.entrypoint).toEqual(variables.flatMap((v) => ['with-generated-secret', v]));
    for (const variable of variables) {
      expect(service.environment![variable] ?? '').toBe('');
      expect(service.environment![`${variable}_FILE`]).toMatch(/^\/var\/lib\/reelflow(-archive)?\//);
    }
  }
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  expect(dockerfile).toContain('COPY deploy/docker/with-generated-secret.sh /usr/local/bin/with-generated-secret');
});

test('private archive downloads: on against the emulator; a public VENDOR_BASE_URL alone makes the worker refuse to start', () => {
  // The entrypoint supplies the generated secrets.
  const workerEnv = (c: ComposeConfig) => startedEnv(c.services.worker);
  const local = loadWorkerConfig(workerEnv(config), { cores: 2 });
  expect(local.archiveAllowPrivate).toBe(true);
  const real = workerEnv(composeConfig({ VENDOR_BASE_URL: 'https://api.vendor.example.com' }));
  expect(() => loadWorkerConfig(real, { cores: 2 })).toThrow(WorkerConfigError);
  expect(() => loadWorkerConfig(real, { cores: 2 })).toThrow(/REELFLOW_ARCHIVE_ALLOW_PRIVATE.*VENDOR_BASE_URL/);
  const fixed = workerEnv(
    composeConfig({ VENDOR_BASE_URL: 'https://api.vendor.example.com', REELFLOW_ARCHIVE_ALLOW_PRIVATE: '0' }),
  );
  expect(loadWorkerConfig(fixed, { cores: 2 }).archiveAllowPrivate).toBe(false);
});

test('the payload codec: off (empty) unless set, and the worker and the cli get the same variables', () => {
  for (const name of ['worker', 'cli']) {
    const env = services[name].environment!;
    expect([env.REELFLOW_CODEC_KEYS, env.REELFLOW_CODEC_KEY_ID]).toEqual(['', '']);
  }
});

// A worker that would build its bundle at start may find dist/ read-only in the image.
test('the image prebuilds the bundle of every setting its worker may have (tracing, codec)', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const flags = /build-bundle\.js([^\n&]*)/.exec(dockerfile)?.[1].trim().split(/\s+/);
  expect(flags).toEqual(expect.arrayContaining(['--tracing', '--codec']));
});

test('the image ships the product build only: no tests, no tools, built with tsconfig.build.json', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const copied = [...dockerfile.matchAll(/^COPY (?:--from=\S+ )?(\S+)/gm)].map((m) => m[1]);
  expect(copied.filter((c) => /^(test|tools|bench)\b/.test(c))).toEqual([]);
  expect(dockerfile).toMatch(/node scripts\/run\.mjs build/);
  const product = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
    include: string[];
    compilerOptions: { rootDir: string; outDir: string };
  };
  expect(product.include).toEqual(['src/**/*.ts']);
  expect(product.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
});

test('Temporal runs from temporalio/server with matching admin-tools, never the retired auto-setup', () => {
  const images = Object.values(services).map((s) => s.image ?? '');
  expect(images.filter((i) => i.includes('auto-setup'))).toEqual([]);
  const server = /^temporalio\/server:(\d+\.\d+\.\d+)$/.exec(services.temporal.image!)?.[1];
  expect(server).toBeDefined();
  for (const name of ['temporal-admin-tools', 'temporal-create-namespace']) {
    expect(services[name].image).toMatch(new RegExp(`^temporalio/admin-tools:${server!.replace(/\./g, '\\.')}\\b`));
  }
  expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', BIND_ON_IP: '0.0.0.0' });
  expect(services.temporal.volumes!.join(' ')).toContain('deploy/dynamicconfig.yaml:');
});

test('start order: schema, server healthy, namespace, search attributes and the receiver, then the worker', () => {
  expect(dependsOn('temporal-admin-tools')).toEqual({ postgresql: 'service_healthy' });
  expect(dependsOn('temporal')).toEqual({ 'temporal-admin-tools': 'service_completed_successfully' });
  expect(dependsOn('temporal-create-namespace')).toEqual({ temporal: 'service_healthy' });
  expect(dependsOn('setup')).toEqual({
    temporal: 'service_healthy',
    'temporal-create-namespace': 'service_completed_successfully',
  });
  // Not the emulator: it is in the demo profile only (compose-profiles.test.ts).
  // The worker's start-up check calls the receiver's /healthz (REELFLOW_CALLBACK_BASE_URL),
  // so the receiver is up first; it makes the callback secret, the worker the archive token.
  expect(dependsOn('receiver')).toEqual({
    temporal: 'service_healthy',
    'temporal-create-namespace': 'service_completed_successfully',
  });
  expect(dependsOn('worker')).toEqual({
    setup: 'service_completed_successfully',
    temporal: 'service_healthy',
    receiver: 'service_healthy',
  });
  expect(dependsOn('gateway')).toEqual({ temporal: 'service_healthy', worker: 'service_healthy' });
});

test('the callback receiver is a service of its own: no connection from outside reaches the worker', () => {
  const receiver = services.receiver;
  expect(receiver.command).toEqual(['node', 'dist/callbacks/main.js']);
  expect(receiver.ports?.map((p) => p.replace(/\/tcp$/, ''))).toEqual(['127.0.0.1:8089:8089']);
  expect(healthTest('receiver')).toContain('http://127.0.0.1:8089/healthz');
  // The worker listens for no callback and publishes only its metrics.
  expect(Object.keys(services.worker.environment!)).not.toContain('REELFLOW_CALLBACK_PORT');
  expect((services.worker.ports ?? []).join(' ')).not.toContain('8089');
  // Its URLs name the receiver, which verifies them with the same secret, kept in the worker's state.
  expect(services.worker.environment!.REELFLOW_CALLBACK_BASE_URL).toBe('http://receiver:8089');
  expect(services.cli.environment!.REELFLOW_CALLBACK_BASE_URL).toBe('http://receiver:8089');
  expect(receiver.environment!.REELFLOW_CALLBACK_SECRET_FILE).toBe(
    services.worker.environment!.REELFLOW_CALLBACK_SECRET_FILE,
  );
  expect(receiver.volumes).toContain('worker-state:/var/lib/reelflow:rw');
  const config = loadReceiverConfig(startedEnv(receiver));
  expect(config).toMatchObject({ port: 8089, host: '0.0.0.0' });
  expect(config.secret.toString()).toBe(GENERATED_SECRETS.REELFLOW_CALLBACK_SECRET);
});

test('every dependency is waited for: one-shots to succeed, the rest to be healthy', () => {
  for (const [name, service] of Object.entries(services)) {
    for (const [dep, { condition }] of Object.entries(service.depends_on ?? {})) {
      const want = ONE_SHOTS.includes(dep) ? 'service_completed_successfully' : 'service_healthy';
      expect({ service: name, dep, condition }).toEqual({ service: name, dep, condition: want });
      if (want === 'service_healthy') expect(services[dep]?.healthcheck).toBeDefined();
    }
  }
  // A one-shot that restarts forever never completes.
  for (const name of ONE_SHOTS) expect(['always', 'unless-stopped']).not.toContain(services[name].restart);
});

test("healthchecks: pg_isready, the cluster health API, the emulator and the worker's /readyz over HTTP", () => {
  expect(healthTest('postgresql')).toMatch(/pg_isready -h 127\.0\.0\.1 /);
  expect(healthTest('temporal')).toContain('temporal operator cluster health --address 127.0.0.1:7233');
  expect(healthTest('emulator')).toContain('http://127.0.0.1:8080/__emulator/health');
  // Ready, not merely listening: the checks passed, the bundle is loaded, the pollers run.
  expect(healthTest('worker')).toContain('http://127.0.0.1:8091/readyz');
  expect(services.worker.environment?.REELFLOW_HEALTH_BIND).toBe('127.0.0.1:8091');
});

test('the one-shots run the schema tool and create the namespace', () => {
  const script = (name: string) => {
    const file = services[name].command![0].replace(/^\/reelflow\//, 'deploy/temporal/');
    return readFileSync(path.join(ROOT, file), 'utf8');
  };
  expect(script('temporal-admin-tools')).toMatch(/temporal-sql-tool .*update-schema -d "\$\{schema_dir\}/);
  expect(services['temporal-admin-tools'].environment).toMatchObject({ SQL_PLUGIN: 'postgres12' });
  expect(script('temporal-create-namespace')).toContain('temporal operator namespace create');
  expect(services.setup.command).toEqual(expect.arrayContaining(['dist/starters/cli/main.js', 'setup']));
});

test('published ports listen on 127.0.0.1 only', () => {
  const ports = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => `${name} ${p}`));
  expect(ports.length).toBeGreaterThanOrEqual(4);
  for (const p of ports) expect(p).toMatch(/^\S+ 127\.0\.0\.1:\d+:\d+(\/tcp)?$/);
});

/** The final stage's user and the directories it makes its own. */
function imageUser(): { user: string; owned: string[] } {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const user = /^USER (\S+)/m.exec(finalStage)?.[1] ?? 'root';
  const owned = [...finalStage.matchAll(/chown (\S+?):\S+ ([^\n&]+)/g)]
    .filter((m) => m[1] === user)
    .flatMap((m) => m[2].trim().split(/\s+/));
  return { user, owned };
}

test('the archive, the worker state and the archive token are named volumes the image user owns', () => {
  const { user, owned } = imageUser();
  expect(user).not.toBe('root');
  const worker = services.worker;
  const mounts = Object.fromEntries(worker.volumes!.map((v) => v.split(':').slice(0, 2).reverse() as [string, string]));
  const archive = worker.environment!.REELFLOW_ARCHIVE_DIR!;
  const state = path.posix.dirname(worker.environment!.REELFLOW_CALLBACK_SECRET_FILE!);
  const archiveToken = path.posix.dirname(worker.environment!.REELFLOW_ARCHIVE_TOKEN_FILE!);
  for (const dir of [archive, state, archiveToken]) {
    expect(Object.keys(config.volumes ?? {})).toContain(mounts[dir]);
    expect(owned).toContain(dir);
  }
});

/** The Node version scripts/ensure-node.mjs pins: the one .ci/run runs the tests on. */
function ciNodeVersion(): string {
  const script = readFileSync(path.join(ROOT, 'scripts', 'ensure-node.mjs'), 'utf8');
  const version = /^const NODE_VERSION = '(\d+\.\d+\.\d+)';$/m.exec(script)?.[1];
  expect(version).toBeDefined();
  return version!;
}

/** The first `node` on PATH, resolved (what `npm` and .ci/run's commands start). */
function nodeOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = dir && path.join(dir, 'node');
    if (candidate && existsSync(candidate)) return realpathSync(candidate);
  }
  return undefined;
}

test('the image is on the Node major CI installs, and under .ci/run the tests run on that Node', () => {
  const pinned = ciNodeVersion();
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const majors = [...dockerfile.matchAll(/^FROM node:(\d+)/gm)].map((m) => m[1]);
  expect(majors.length).toBeGreaterThan(0);
  expect(new Set(majors)).toEqual(new Set([pinned.split('.')[0]]));
  // .ci/run puts that Node first on PATH before the README's test commands.
  const ci = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
  const install = ci.indexOf('node_bin="$(node scripts/ensure-node.mjs)"');
  expect(install).toBeGreaterThan(-1);
  expect(ci.indexOf('export PATH="$node_bin:$PATH"')).toBeGreaterThan(install);
  expect(ci.indexOf('\nnpm test\n')).toBeGreaterThan(install);
  // When PATH leads to it (CI), this process must be it too: nothing started the tests on another Node.
  if (nodeOnPath()?.endsWith(path.join(`node-${pinned}`, 'bin', 'node'))) {
    expect(process.version).toBe(`v${pinned}`);
  }
});

/** Compose's own options before the subcommand, each with its value. */
const GLOBAL_OPTIONS = ['--profile', '--env-file', '-f', '--file', '-p', '--project-name'];

/** The `docker compose …` commands of the Docker section of docs/deploy.md, without compose's own options. */
function docsComposeCommands(): string[][] {
  const page = readFileSync(path.join(ROOT, 'docs', 'deploy.md'), 'utf8');
  const start = page.indexOf('\n## Docker\n');
  expect(start).toBeGreaterThan(-1);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  return section
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith('docker compose '))
    .map((line) => {
      const words = line.split(/\s+/).slice(2);
      while (GLOBAL_OPTIONS.includes(words[0])) words.splice(0, 2);
      return words;
    });
}

test('the compose commands of docs/deploy.md name services, CLI commands and files that exist', () => {
  const commands = docsComposeCommands();
  expect(commands.map((c) => c[0])).toEqual(expect.arrayContaining(['up', 'run']));
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  for (const [sub, ...rest] of commands) {
    const names = rest.filter((a) => !a.startsWith('-'));
    if (sub === 'run') {
      const [service, command, ...args] = names;
      expect(services[service]).toBeDefined();
      expect(findCommand(command)).toBeDefined();
      for (const file of args.filter((a) => a.includes('/'))) {
        if (file.startsWith('/definitions/')) {
          // The user's folder, mounted by the cli service.
          expect(services[service].volumes).toContain(`${path.join(ROOT, 'definitions')}:/definitions:ro`);
          continue;
        }
        expect(dockerfile).toContain(`COPY ${file.split('/')[0]} `);
        expect(() => readFileSync(path.join(ROOT, file))).not.toThrow();
      }
    } else if (sub === 'exec') {
      expect(services[names[0]]).toBeDefined();
    } else if (sub === 'logs' || sub === 'ps') {
      for (const service of names) expect(services[service]).toBeDefined();
    } else {
      expect(['up', 'down', 'build', 'ps']).toContain(sub);
    }
  }
});
