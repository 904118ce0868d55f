/**
 * The worker process (`npm run worker` → node dist/workers/main.js).
 *
 * - Temporal connection from @temporalio/envconfig: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 *   TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE and the temporal.toml config file.
 * - Vendor addresses from VENDOR_* and credentials per profile from
 *   REELFLOW_PROFILE_<NAME>_{API_KEY,ACCESS_TOKEN} (src/vendor-api/config.ts); webhook signing
 *   secrets from REELFLOW_PROFILE_<NAME>_WEBHOOK_SECRET (src/webhooks/secrets.ts).
 * - reelflow's own settings from REELFLOW_* (./config.ts).
 * - Workers: see ./worker.ts. Workflow code: the prebuilt dist/workflow-bundle.js, or the
 *   variant matching tracing and the codec, built first when missing or stale (./bundle.ts).
 * - Callback receiver in this process when REELFLOW_CALLBACK_PORT is set.
 * - Archive server (GET /archive/…, ./archive-server.ts) when REELFLOW_ARCHIVE_TOKEN is set.
 * - Payload codec (AES-GCM) when REELFLOW_CODEC_KEYS is set (src/codec): the workers and
 *   the receiver's client encrypt every payload they write (failure messages and stacks
 *   included) and decrypt what they read.
 * - Metrics (REELFLOW_METRICS_BIND): the SDK's and reelflow's (src/metrics) on one Prometheus endpoint.
 * - Health (REELFLOW_HEALTH_BIND, ./health.ts): /livez, and /readyz once the checks passed, the
 *   bundle is loaded and every poller runs.
 * - A listener that cannot bind stops the start at once, naming its variable (ListenError).
 * - SIGINT/SIGTERM: the SDK's Runtime drains the workers (its shutdownSignals); then the
 *   receiver, the connections, the vendor clients and the span exporter are closed. A second
 *   signal during that drain exits at once, non-zero (workerMain), so a supervisor's restart
 *   policy sees it; a drain that completes exits 0.
 *
 * Logs: JSON lines on stdout at REELFLOW_LOG_LEVEL (src/telemetry/logger.ts), the SDK's
 * own through the same logger (./runtime.ts). They say where it listens and which task
 * queues it polls; never a secret. Tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set
 * (src/telemetry/tracing.ts, ./tracing.ts).
 */
import { Client } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Runtime, type NativeConnectionOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { createS3Client } from '../config/object-store';
import { buildCallbackUrl } from '../callbacks/token';
import { CodecConfigError, codecDataConverterOf, workerCodecFromEnv, type EncryptionCodec } from '../codec';
import { startCallbackReceiver, type CallbackReceiver } from '../callbacks/receiver';
import { createLogger, lineDestination, lineLogger, type LogLine, type Logger } from '../telemetry/logger';
import { startTracing, tracingClientInterceptors, type Tracing } from '../telemetry/tracing';
import {
  loadVendorConfig,
  profileVariable,
  resolveProfile,
  VendorConfigError,
  vendorClientFor,
  type VendorClient,
} from '../vendor-api';
import { startOperatorWaitsGauge } from '../metrics/operator-waits';
import type { WebhookKey } from '../webhooks/binding';
import { endpointSecretKey, readEndpointSecrets, readWebhookSecrets } from '../webhooks/secrets';
import { startArchiveServer, type ArchiveServer } from './archive-server';
import { startHealthServer, type HealthServer, type Readiness } from './health';
import { ListenError, listenNamed } from '../config/http-server';
import { ensureWorkflowBundle } from './bundle';
import { describeWorkerConfig, loadWorkerConfig, WorkerConfigError, type Env, type WorkerConfig } from './config';
import { installRuntime } from './runtime';
import { runStartupChecks, StartupCheckError } from './startup-checks';
import { nodeSupportWarning } from '../config/node-support';
import { definedEnv, describeStartupError } from '../config/startup';
import { tracingWorkerOptions } from './tracing';
import { createReelflowWorkers, type ReelflowWorkers } from './worker';
import { connectTemporal } from '../config/temporal-connection';

export interface WorkerProcessOptions {
  /** Default process.env. */
  env?: Env;
  /** Workflows module to bundle in memory instead of the prebuilt bundle (tests, development). */
  workflowsPath?: string;
  /** The JSON logger. Default: pino on stdout at REELFLOW_LOG_LEVEL. */
  logger?: Logger;
  /** Instead of stdout: each JSON line, as a string (tests, the demo's log file). */
  log?: (line: string) => void;
}

export interface RunningWorkerProcess {
  config: WorkerConfig;
  namespace: string;
  taskQueues: string[];
  /** Where the callback receiver listens, when it runs in this process. */
  receiverUrl?: string;
  /** Where the archive server listens (REELFLOW_ARCHIVE_TOKEN set), e.g. http://127.0.0.1:8090. */
  archiveUrl?: string;
  /** Where the health listener answers (REELFLOW_HEALTH_BIND), e.g. http://127.0.0.1:8091. */
  healthUrl?: string;
  /** Graceful shutdown (what SIGINT/SIGTERM do). */
  shutdown(): void;
  /** Resolves once the workers have stopped and everything is closed; rejects with a worker's failure. */
  done: Promise<void>;
}

function vendorClients(config: WorkerConfig, env: Env): Map<string, VendorClient> {
  const vendor = loadVendorConfig(env);
  const clients = new Map<string, VendorClient>();
  for (const profile of config.profiles) {
    // Each interface needs one credential kind; a profile may serve only some stages,
    // so neither is required here, but one of them must be there.
    const creds = resolveProfile(profile, env, []);
    if (!creds.apiKey && !creds.accessToken) {
      throw new VendorConfigError(
        `credential profile "${profile}": neither ${profileVariable(profile, 'apiKey')} nor ${profileVariable(profile, 'accessToken')} is set`,
        profileVariable(profile, 'apiKey'),
      );
    }
    clients.set(profile, vendorClientFor(vendor, creds));
  }
  return clients;
}

/** Signing secrets per served profile (all required when the worker has a default webhook URL), and per endpoint. */
function webhookSecrets(config: WorkerConfig, env: Env): WebhookSecrets {
  const profiles = readWebhookSecrets(config.profiles, env, config.webhookUrl !== undefined);
  const endpoints = readEndpointSecrets(env);
  const problems = [...profiles.problems, ...endpoints.problems];
  if (problems.length > 0) throw new WorkerConfigError(problems);
  return { profiles: profiles.secrets, endpoints: endpoints.secrets };
}

interface WebhookSecrets {
  profiles: Map<string, WebhookKey>;
  /** By endpointSecretKey(id). */
  endpoints: Map<string, WebhookKey>;
}

export function activityDeps(
  config: WorkerConfig,
  clients: Map<string, VendorClient>,
  secrets: WebhookSecrets = { profiles: new Map(), endpoints: new Map() },
  /** Where the object store's client reads its AWS variables (REELFLOW_ARCHIVE_STORE). */
  env: Env = process.env,
): ActivityDeps {
  const deps: ActivityDeps = {
    vendorFor(profile: string): VendorClient {
      const client = clients.get(profile);
      if (!client) {
        throw new VendorConfigError(
          `credential profile "${profile}" is not served by this worker: add it to REELFLOW_PROFILES (serving: ${config.profiles.join(', ')})`,
          'REELFLOW_PROFILES',
        );
      }
      return client;
    },
    archiveRoot: config.archiveRoot,
    ...(config.archiveStore ? { archiveStore: { ...config.archiveStore, client: createS3Client(env) } } : {}),
    archiveAllowPrivate: config.archiveAllowPrivate,
    archiveMaxBytes: config.archiveMaxBytes,
    webhookSecretFor: (profile) => secrets.profiles.get(profile),
    endpointSecretFor: (id) => secrets.endpoints.get(endpointSecretKey(id)),
    webhookAllowPrivate: config.webhookAllowPrivate,
    webhookTimeoutMs: config.webhookTimeoutMs,
  };
  if (config.webhookUrl) deps.webhookDefaultUrl = config.webhookUrl;
  if (config.tenants) deps.tenants = config.tenants;
  const { callbackBaseUrl, callbackSecret } = config;
  if (callbackBaseUrl && callbackSecret) {
    deps.callbackUrlFor = (workflowId, step, attempt, run) =>
      buildCallbackUrl(callbackBaseUrl, callbackSecret, workflowId, step, attempt, run);
  }
  return deps;
}

function workerLogger(opts: WorkerProcessOptions, config: WorkerConfig, env: Env): Logger {
  if (opts.logger) return opts.logger;
  const destination = opts.log ? { destination: lineDestination(opts.log) } : {};
  return createLogger({ name: 'reelflow-worker', level: config.logLevel, env, ...destination });
}

/** What start-up builds before any connection: the config, the logger, the activities, tracing. */
interface Prepared {
  env: Env;
  config: WorkerConfig;
  logger: Logger;
  log: LogLine;
  clients: Map<string, VendorClient>;
  codec: EncryptionCodec | undefined;
  dataConverter: DataConverter | undefined;
  activities: ReturnType<typeof createActivities>;
  /** The Prometheus endpoint is on (reelflow's gauges go there too). */
  metricsOn: boolean;
  tracing: Tracing | undefined;
  /** What /readyz reports; the start-up checks' part is set here. */
  readiness: Readiness;
}

async function prepare(opts: WorkerProcessOptions): Promise<Prepared> {
  const env = opts.env ?? process.env;
  const config = loadWorkerConfig(env);
  const logger = workerLogger(opts, config, env);
  const log: LogLine = lineLogger(logger);
  // Before any client exists: a strict refusal leaves nothing to close.
  const readiness: Readiness = { checks: { state: 'pending' }, bundleLoaded: false };
  const vendorCheckFailed = await runStartupChecks(config, env, log, (failed) => {
    readiness.checks = failed.length ? { state: 'failed', failed: failed.join('; ') } : { state: 'passed' };
  });
  const clients = vendorClients(config, env);
  const codec = workerCodecFromEnv(env);
  const dataConverter = codec ? codecDataConverterOf(codec) : undefined;
  const deps = { ...activityDeps(config, clients, webhookSecrets(config, env), env), vendorCheckFailed };
  // validateDefinition tells each pipeline whether this worker refuses plaintext (codec strict mode).
  const activities = createActivities({ ...deps, ...(codec?.strict ? { codecStrict: true } : {}) });
  // Before any connection: the Runtime is created with the first one.
  const runtimeOn = installRuntime({ logger, ...(config.metricsBind ? { metricsBind: config.metricsBind } : {}) }, log);
  const metricsOn = config.metricsBind !== undefined && runtimeOn;
  const tracing = await startTracing(env, 'reelflow-worker');
  return { env, config, logger, log, clients, codec, dataConverter, activities, metricsOn, tracing, readiness };
}

type Close = () => Promise<unknown>;
interface Closers {
  push: (close: Close) => void;
  closeAll: () => Promise<void>;
}

/** What was opened, closed in reverse order of opening; each close's failure is ignored. */
function closeList(first: Close[]): Closers {
  const closers = [...first];
  return {
    push: (close) => {
      closers.push(close);
    },
    closeAll: async () => {
      for (const close of closers.reverse()) await close().catch(() => undefined);
      closers.length = 0;
    },
  };
}

function logStarted(p: Prepared, connectionOptions: NativeConnectionOptions, namespace: string): void {
  const { log, codec } = p;
  log(
    `connected to Temporal at ${connectionOptions.address ?? '(SDK default address)'}, namespace ${namespace}${
      connectionOptions.tls ? ', TLS' : ''
    }`,
  );
  log(describeWorkerConfig(p.config));
  log(
    codec
      ? `payload codec: AES-256-GCM, encrypting with key id ${codec.keyId}${codec.strict ? ', strict (plaintext starts, signals and Updates refused)' : ''}`
      : 'payload codec: off',
  );
  if (codec && !codec.strict)
    log('REELFLOW_CODEC_STRICT=0: plaintext starts, signals and Updates are taken although the codec is on', 'warn');
}

/** The operator-waits gauge on the metrics endpoint; returns how to stop it. */
function startGauge(p: Prepared, connection: NativeConnection, namespace: string): Close {
  const gauge = startOperatorWaitsGauge({
    connection,
    namespace,
    taskQueue: p.config.taskQueue,
    meter: Runtime.instance().metricMeter,
    intervalMs: p.config.metricsRefreshSeconds * 1000,
    log: p.log,
  });
  return () => Promise.resolve(gauge.stop());
}

/** The workers, on the workflow bundle that matches this worker: tracing interceptors, the codec's converters. */
async function startWorkers(
  opts: WorkerProcessOptions,
  p: Prepared,
  connection: NativeConnection,
  namespace: string,
): Promise<ReelflowWorkers> {
  const { log, tracing, dataConverter } = p;
  if (tracing) log(`tracing: spans to ${new URL(tracing.url).host} (OTLP/HTTP)`);
  const bundleVariant = {
    tracing: !!tracing,
    failureConverterPath: dataConverter?.failureConverterPath,
    payloadConverterPath: dataConverter?.payloadConverterPath,
  };
  const workflowSource = opts.workflowsPath
    ? { workflowsPath: opts.workflowsPath }
    : { workflowBundle: { codePath: (await ensureWorkflowBundle({ log, ...bundleVariant })).codePath } };
  const tracingOptions = tracing ? await tracingWorkerOptions(tracing, { bundledAtStart: !!opts.workflowsPath }) : {};
  return createReelflowWorkers({
    connection,
    namespace,
    config: p.config,
    activities: p.activities,
    ...workflowSource,
    workerOptions: { ...(dataConverter ? { dataConverter } : {}), ...tracingOptions },
    log,
  });
}

/** The callback receiver in this process, when REELFLOW_CALLBACK_PORT is set; its closers join `closers`. */
async function startReceiver(
  p: Prepared,
  connectionOptions: NativeConnectionOptions,
  namespace: string,
  closers: Closers,
): Promise<CallbackReceiver | undefined> {
  const { config, dataConverter } = p;
  if (config.callbackPort === undefined || !config.callbackSecret) return undefined;
  const clientConnection = await connectTemporal(connectionOptions);
  closers.push(() => clientConnection.close());
  // Traced, each callback is a trace of its own: the receiver's signal → the workflow's handler.
  const client = new Client({
    connection: clientConnection,
    namespace,
    ...(dataConverter ? { dataConverter } : {}),
    ...(await tracingClientInterceptors(p.env)),
  });
  const { callbackHost: host, callbackPort: port, callbackSecret: secret } = config;
  const receiver = await listenNamed('REELFLOW_CALLBACK_PORT', `${host}:${port}`, () =>
    startCallbackReceiver({ host, port, secret, ...config.callbackLimits, client, log: p.log }),
  );
  closers.push(() => receiver.close());
  p.log(`callback receiver listening on ${config.callbackHost}:${receiver.port} (POST /callbacks/…, GET /healthz)`);
  return receiver;
}

/** The archive server, when REELFLOW_ARCHIVE_TOKEN is set (docs/library.md "Archived files"). */
async function startArchive(p: Prepared, closers: Closers): Promise<ArchiveServer | undefined> {
  const { archiveServer: at, archiveToken: token, archiveRoot: root } = p.config;
  if (!at || !token) return undefined;
  const server = await listenNamed('REELFLOW_ARCHIVE_PORT', `${at.host}:${at.port}`, () =>
    startArchiveServer({ root, token, host: at.host, port: at.port, log: p.log }),
  );
  closers.push(() => server.close());
  p.log(`archive server listening on ${at.host}:${server.port} (GET /archive/<pipeline>/<task>/<name>, bearer token)`);
  return server;
}

/** The health listener, when REELFLOW_HEALTH_BIND is set (./health.ts). */
async function startHealth(p: Prepared, closers: Closers): Promise<HealthServer | undefined> {
  const bind = p.config.healthBind;
  if (!bind) return undefined;
  const server = await listenNamed('REELFLOW_HEALTH_BIND', `${bind.host}:${bind.port}`, () =>
    startHealthServer(bind, p.readiness),
  );
  closers.push(() => server.close());
  p.log(`health listening on ${bind.host}:${server.port} (GET /livez, /readyz)`);
  return server;
}

/** Starts everything; the returned `done` settles when the process may exit. */
export async function startWorkerProcess(opts: WorkerProcessOptions = {}): Promise<RunningWorkerProcess> {
  const p = await prepare(opts);
  const { config, log, tracing } = p;
  const { connectionOptions, namespace: configuredNamespace } = loadClientConnectConfig({
    overrideEnvVars: definedEnv(opts.env ?? process.env),
  });
  const namespace = configuredNamespace ?? 'default';
  // Closed in reverse: the span exporter last, after the workers' final spans.
  const closers = closeList([
    ...(tracing ? [() => tracing.shutdown()] : []),
    () => Promise.all([...p.clients.values()].map((c) => c.close())),
  ]);
  try {
    // Listeners first: one that cannot bind stops the start before any worker exists.
    const health = await startHealth(p, closers);
    const connection = await NativeConnection.connect(connectionOptions);
    closers.push(() => connection.close());
    logStarted(p, connectionOptions, namespace);
    const receiver = await startReceiver(p, connectionOptions, namespace, closers);
    const archive = await startArchive(p, closers);
    if (p.metricsOn) closers.push(startGauge(p, connection, namespace));
    const workers = await startWorkers(opts, p, connection, namespace);
    p.readiness.bundleLoaded = true;
    const done = workers.run().finally(closers.closeAll);
    p.readiness.pollers = () => workers.workers.map((w) => ({ taskQueue: w.taskQueue, state: w.worker.getState() }));
    log(`polling ${workers.workers.map((w) => w.taskQueue).join(', ')}`);
    return {
      config,
      namespace,
      taskQueues: workers.workers.map((w) => w.taskQueue),
      ...(receiver ? { receiverUrl: receiver.url } : {}),
      ...(archive ? { archiveUrl: archive.url } : {}),
      ...(health ? { healthUrl: health.url } : {}),
      shutdown: () => workers.shutdown(),
      done,
    };
  } catch (err) {
    await closers.closeAll();
    throw err;
  }
}

/** Printed as their own message at start-up (src/config/startup.ts); any other error keeps its stack. */
const PLAIN_STARTUP_ERRORS = [WorkerConfigError, VendorConfigError, CodecConfigError, StartupCheckError, ListenError];

/** The exit code of a process killed by `signal`, as a shell reports it (128 + its number). */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * The first SIGINT/SIGTERM is the SDK Runtime's (it drains the workers); the second exits at
 * once, non-zero: a drain the operator gave up on is not a clean stop. Returns the remover.
 */
function exitOnSecondSignal(logger: Logger, running: () => RunningWorkerProcess | undefined): () => void {
  let seen = 0;
  const on = (signal: keyof typeof SIGNAL_EXIT) => () => {
    const worker = running();
    // Before the workers run, nothing is drained: stop at once.
    if (++seen === 1 && worker) return worker.shutdown();
    logger.fatal(`${signal} ${worker ? 'again during shutdown' : 'during start-up'}: exiting at once`);
    process.exit(SIGNAL_EXIT[signal]);
  };
  const handlers = { SIGINT: on('SIGINT'), SIGTERM: on('SIGTERM') };
  for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
  return () => {
    for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
  };
}

/**
 * The worker as a process's whole job (`npm run worker`, `reelflow worker`): resolves to the
 * exit code, 0 once a drain completed, 1 when it could not start (the reason named, e.g. the
 * variable of a port that is taken) or failed. The caller exits with it: the SDK's native
 * runtime keeps the event loop alive, so a failed start would otherwise hang.
 */
export async function workerMain(
  opts: WorkerProcessOptions = {},
  onStarted: (w: RunningWorkerProcess) => void = () => undefined,
): Promise<number> {
  // Before the configuration is read (it may be what failed), lines go out at the default level.
  const processLogger = createLogger({ name: 'reelflow-worker' });
  const oldNode = nodeSupportWarning();
  if (oldNode) processLogger.warn(oldNode);
  let running: RunningWorkerProcess | undefined;
  const remove = exitOnSecondSignal(processLogger, () => running);
  try {
    running = await startWorkerProcess(opts);
    onStarted(running);
    await running.done;
    processLogger.info('stopped');
    return 0;
  } catch (err) {
    processLogger.fatal(describeStartupError(err, PLAIN_STARTUP_ERRORS));
    return 1;
  } finally {
    remove();
  }
}

if (require.main === module) void workerMain().then((code) => process.exit(code));
