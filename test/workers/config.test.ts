import path from 'node:path';
import { inspect } from 'node:util';
import { describeWorkerConfig, loadWorkerConfig, WorkerConfigError, type Env } from '../../src/workers/config';

const SECRET = 'S3cr3t-callback-key-do-not-print';

function errorOf(env: Env): WorkerConfigError {
  try {
    loadWorkerConfig(env, { cores: 2 });
  } catch (err) {
    expect(err).toBeInstanceOf(WorkerConfigError);
    return err as WorkerConfigError;
  }
  throw new Error('expected a WorkerConfigError');
}

test('defaults, sized for 2 cores', () => {
  const c = loadWorkerConfig({}, { cores: 2 });
  expect(c).toEqual({
    taskQueue: 'reelflow',
    profiles: ['default'],
    archiveRoot: path.resolve('archive'),
    archiveAllowPrivate: false,
    archiveMaxBytes: 2 ** 31,
    webhookAllowPrivate: { all: false, hosts: [], cidrs: [] },
    webhookTimeoutMs: 30_000,
    callbackHost: '0.0.0.0',
    callbackLimits: {},
    getAssetRatePerSecond: 9,
    maxConcurrentActivities: 20,
    maxConcurrentWorkflowTasks: 4,
    isolateExecutionTimeoutSeconds: 30,
    metricsRefreshSeconds: 15,
    logLevel: 'info',
    strictStart: true,
  });
  expect(c.callbackSecret).toBeUndefined();
  expect(loadWorkerConfig({ REELFLOW_STRICT_START: '0' }).strictStart).toBe(false);
});

test('every variable is read; blanks count as unset', () => {
  const c = loadWorkerConfig(
    {
      REELFLOW_TASK_QUEUE: 'tq-1',
      REELFLOW_PROFILES: ' a, b-2 ,a,,',
      REELFLOW_ARCHIVE_DIR: '/data/archive',
      REELFLOW_ARCHIVE_ALLOW_PRIVATE: 'true',
      REELFLOW_ARCHIVE_MAX_BYTES: '1048576',
      REELFLOW_CALLBACK_BASE_URL: 'https://hooks.example.com/reelflow/',
      REELFLOW_CALLBACK_SECRET: SECRET,
      REELFLOW_CALLBACK_PORT: '8089',
      REELFLOW_CALLBACK_HOST: '127.0.0.1',
      REELFLOW_GETASSET_RATE: '2.5',
      REELFLOW_MAX_CONCURRENT_ACTIVITIES: '7',
      REELFLOW_MAX_CONCURRENT_WORKFLOW_TASKS: '3',
      REELFLOW_MAX_CACHED_WORKFLOWS: '150',
      REELFLOW_ISOLATE_EXECUTION_TIMEOUT: '45',
      REELFLOW_METRICS_BIND: '0.0.0.0:9464',
      REELFLOW_METRICS_REFRESH: '60',
      REELFLOW_LOG_LEVEL: ' DEBUG ',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      UNRELATED: 'x',
    },
    { cores: 2 },
  );
  expect(c).toMatchObject({
    taskQueue: 'tq-1',
    profiles: ['a', 'b-2'],
    archiveRoot: '/data/archive',
    archiveAllowPrivate: true,
    archiveMaxBytes: 1048576,
    callbackBaseUrl: 'https://hooks.example.com/reelflow',
    callbackPort: 8089,
    callbackHost: '127.0.0.1',
    getAssetRatePerSecond: 2.5,
    maxConcurrentActivities: 7,
    maxConcurrentWorkflowTasks: 3,
    maxCachedWorkflows: 150,
    isolateExecutionTimeoutSeconds: 45,
    metricsBind: '0.0.0.0:9464',
    metricsRefreshSeconds: 60,
    logLevel: 'debug',
    tracingEndpoint: 'http://collector:4318',
  });
  expect(describeWorkerConfig(c)).toContain('logLevel=debug');
  expect(describeWorkerConfig(c)).toContain('isolateExecutionTimeout=45s');
  expect(describeWorkerConfig(c)).toContain('tracing=collector:4318');
  expect(c.callbackSecret).toBe(SECRET);
  expect(loadWorkerConfig({ REELFLOW_TASK_QUEUE: '  ', REELFLOW_CALLBACK_PORT: '' }, { cores: 2 }).taskQueue).toBe(
    'reelflow',
  );
});

test('the callback secret never shows when the config is logged, inspected or serialized', () => {
  const c = loadWorkerConfig(
    { REELFLOW_CALLBACK_BASE_URL: 'https://h.example', REELFLOW_CALLBACK_SECRET: SECRET },
    { cores: 2 },
  );
  expect(JSON.stringify(c)).not.toContain(SECRET);
  expect(inspect(c, { depth: 5 })).not.toContain(SECRET);
  expect(describeWorkerConfig(c)).not.toContain(SECRET);
  expect(JSON.stringify({ ...c })).not.toContain(SECRET);
  expect(describeWorkerConfig(c)).toContain('https://h.example/callbacks/');
});

test.each<[string, string, Env, RegExp]>([
  [
    'secret missing with base URL',
    'REELFLOW_CALLBACK_SECRET',
    { REELFLOW_CALLBACK_BASE_URL: 'https://h.example' },
    /required/,
  ],
  ['secret missing with port', 'REELFLOW_CALLBACK_SECRET', { REELFLOW_CALLBACK_PORT: '8089' }, /required/],
  [
    'base URL not http',
    'REELFLOW_CALLBACK_BASE_URL',
    { REELFLOW_CALLBACK_BASE_URL: 'ftp://x', REELFLOW_CALLBACK_SECRET: SECRET },
    /http/,
  ],
  [
    'base URL with query',
    'REELFLOW_CALLBACK_BASE_URL',
    { REELFLOW_CALLBACK_BASE_URL: 'https://x/?a=1', REELFLOW_CALLBACK_SECRET: SECRET },
    /query/,
  ],
  [
    'port not a number',
    'REELFLOW_CALLBACK_PORT',
    { REELFLOW_CALLBACK_PORT: 'http', REELFLOW_CALLBACK_SECRET: SECRET },
    /whole number/,
  ],
  [
    'port too big',
    'REELFLOW_CALLBACK_PORT',
    { REELFLOW_CALLBACK_PORT: '70000', REELFLOW_CALLBACK_SECRET: SECRET },
    /at most 65535/,
  ],
  ['rate over the vendor limit', 'REELFLOW_GETASSET_RATE', { REELFLOW_GETASSET_RATE: '11' }, /at most 10/],
  ['metrics refresh zero', 'REELFLOW_METRICS_REFRESH', { REELFLOW_METRICS_REFRESH: '0' }, /at least 1/],
  ['rate zero', 'REELFLOW_GETASSET_RATE', { REELFLOW_GETASSET_RATE: '0' }, /above 0/],
  ['rate not a number', 'REELFLOW_GETASSET_RATE', { REELFLOW_GETASSET_RATE: 'fast' }, /number/],
  ['bad profile name', 'REELFLOW_PROFILES', { REELFLOW_PROFILES: 'ok,not ok' }, /letters/],
  [
    'unknown log level',
    'REELFLOW_LOG_LEVEL',
    { REELFLOW_LOG_LEVEL: 'loud' },
    /must be one of trace, debug, info, warn, error/,
  ],
  ['collector not a URL', 'OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /http/],
  ['no profile', 'REELFLOW_PROFILES', { REELFLOW_PROFILES: ' , ' }, /at least one/],
  ['bad task queue', 'REELFLOW_TASK_QUEUE', { REELFLOW_TASK_QUEUE: 'a queue' }, /letters/],
  [
    'one workflow task',
    'REELFLOW_MAX_CONCURRENT_WORKFLOW_TASKS',
    { REELFLOW_MAX_CONCURRENT_WORKFLOW_TASKS: '1' },
    /at least 2/,
  ],
  ['cache of one', 'REELFLOW_MAX_CACHED_WORKFLOWS', { REELFLOW_MAX_CACHED_WORKFLOWS: '1' }, /at least 2/],
  [
    'activation timeout zero',
    'REELFLOW_ISOLATE_EXECUTION_TIMEOUT',
    { REELFLOW_ISOLATE_EXECUTION_TIMEOUT: '0' },
    /at least 1/,
  ],
  ['metrics bind', 'REELFLOW_METRICS_BIND', { REELFLOW_METRICS_BIND: '9464' }, /host:port/],
  [
    'archive opt-in not a switch',
    'REELFLOW_ARCHIVE_ALLOW_PRIVATE',
    { REELFLOW_ARCHIVE_ALLOW_PRIVATE: 'yes please' },
    /1, 0, true or false/,
  ],
  ['archive size limit zero', 'REELFLOW_ARCHIVE_MAX_BYTES', { REELFLOW_ARCHIVE_MAX_BYTES: '0' }, /at least 1/],
  [
    'archive size limit with a unit',
    'REELFLOW_ARCHIVE_MAX_BYTES',
    { REELFLOW_ARCHIVE_MAX_BYTES: '2GiB' },
    /whole number/,
  ],
])('%s → error names %s', (_, variable, env, rule) => {
  const err = errorOf(env);
  expect(err.variables).toContain(variable);
  expect(err.message).toContain(variable);
  expect(err.message).toMatch(rule);
});

test('private archive downloads only while the vendor is the emulator: refused with a public VENDOR_BASE_URL', () => {
  for (const vendor of ['https://api.vendor.example.com', 'https://8.8.8.8:443/base']) {
    const err = errorOf({ REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', VENDOR_BASE_URL: vendor });
    expect(err.variables).toEqual(['REELFLOW_ARCHIVE_ALLOW_PRIVATE']);
    expect(err.message).toMatch(/REELFLOW_ARCHIVE_ALLOW_PRIVATE.*VENDOR_BASE_URL is a public host/);
  }
  for (const vendor of ['http://emulator:8080', 'http://127.0.0.1:18080', 'http://localhost:8080', 'http://10.0.0.5']) {
    expect(
      loadWorkerConfig({ REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', VENDOR_BASE_URL: vendor }, { cores: 2 })
        .archiveAllowPrivate,
    ).toBe(true);
  }
  expect(
    loadWorkerConfig(
      { REELFLOW_ARCHIVE_ALLOW_PRIVATE: '0', VENDOR_BASE_URL: 'https://api.vendor.example.com' },
      { cores: 2 },
    ).archiveAllowPrivate,
  ).toBe(false);
});

test('a short secret is refused by name, and its value is not in the message', () => {
  const short = 'tooShort-9chars';
  const err = errorOf({ REELFLOW_CALLBACK_BASE_URL: 'https://h.example', REELFLOW_CALLBACK_SECRET: short });
  expect(err.variables).toEqual(['REELFLOW_CALLBACK_SECRET']);
  expect(err.message).toMatch(/REELFLOW_CALLBACK_SECRET must be at least 16 characters/);
  expect(err.message).not.toContain(short);
  expect(inspect(err)).not.toContain(short);
});

test('several problems are reported together', () => {
  const err = errorOf({ REELFLOW_GETASSET_RATE: '50', REELFLOW_CALLBACK_PORT: 'x' });
  expect(err.variables).toEqual(expect.arrayContaining(['REELFLOW_GETASSET_RATE', 'REELFLOW_CALLBACK_PORT']));
});

test('REELFLOW_NOTIFY_URL: an http(s) URL, public unless REELFLOW_NOTIFY_ALLOW_PRIVATE; the log shows its origin only', () => {
  const c = loadWorkerConfig({ REELFLOW_NOTIFY_URL: 'https://hooks.example.com/reelflow?token=t0k3n' }, { cores: 2 });
  expect([c.webhookUrl, c.webhookAllowPrivate.all]).toEqual(['https://hooks.example.com/reelflow?token=t0k3n', false]);
  expect(describeWorkerConfig(c)).toContain('notify=https://hooks.example.com/…');
  expect(describeWorkerConfig(c)).not.toContain('t0k3n');
  expect(errorOf({ REELFLOW_NOTIFY_URL: 'ftp://hooks.example.com/x' }).message).toMatch(
    /REELFLOW_NOTIFY_URL must be an http\(s\) URL/,
  );
  expect(errorOf({ REELFLOW_NOTIFY_URL: 'http://127.0.0.1:9000/hook' }).message).toMatch(
    /REELFLOW_NOTIFY_URL host 127\.0\.0\.1 is a loopback address.*REELFLOW_NOTIFY_ALLOW_PRIVATE does not list it/,
  );
  const local = loadWorkerConfig(
    { REELFLOW_NOTIFY_URL: 'http://127.0.0.1:9000/hook', REELFLOW_NOTIFY_ALLOW_PRIVATE: '1' },
    { cores: 2 },
  );
  expect(local.webhookAllowPrivate.all).toBe(true);
});

test('REELFLOW_NOTIFY_ALLOW_PRIVATE: an allow-list of hosts and CIDRs; REELFLOW_NOTIFY_TIMEOUT in seconds', () => {
  const env = {
    REELFLOW_NOTIFY_URL: 'http://receiver:9000/hook',
    REELFLOW_NOTIFY_ALLOW_PRIVATE: 'receiver,10.0.0.0/8',
  };
  const c = loadWorkerConfig({ ...env, REELFLOW_NOTIFY_TIMEOUT: '12' }, { cores: 2 });
  expect(c.webhookAllowPrivate).toEqual({ all: false, hosts: ['receiver'], cidrs: ['10.0.0.0/8'] });
  expect(c.webhookTimeoutMs).toBe(12_000);
  expect(describeWorkerConfig(c)).toContain('notifyAllowPrivate=receiver,10.0.0.0/8');
  // The list does not cover another private host.
  expect(errorOf({ ...env, REELFLOW_NOTIFY_URL: 'http://10.0.0.1.nip.io.local/x' }).variables).toEqual([
    'REELFLOW_NOTIFY_URL',
  ]);
  expect(errorOf({ ...env, REELFLOW_NOTIFY_URL: 'http://192.168.1.2/x' }).message).toMatch(
    /192\.168\.1\.2 is a private/,
  );
  expect(errorOf({ REELFLOW_NOTIFY_ALLOW_PRIVATE: '10.0.0.0/40' }).message).toMatch(
    /REELFLOW_NOTIFY_ALLOW_PRIVATE.*prefix length must be 0\.\.32/,
  );
  expect(errorOf({ REELFLOW_NOTIFY_TIMEOUT: '120' }).message).toMatch(/REELFLOW_NOTIFY_TIMEOUT must be at most 55/);
});
