/**
 * The worker process (`npm run worker` → node dist/src/workers/main.js).
 *
 * - Temporal connection from @temporalio/envconfig: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 *   TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE and the temporal.toml config file.
 * - Vendor addresses from VENDOR_* and credentials per profile from
 *   REELFLOW_PROFILE_<NAME>_{API_KEY,ACCESS_TOKEN} (src/vendor-api/config.ts).
 * - reelflow's own settings from REELFLOW_* (./config.ts).
 * - Workers: see ./worker.ts. Workflow code: the prebuilt dist/workflow-bundle.js (with the
 *   codec, the bundle with its failure converter), built first when missing or stale (./bundle.ts).
 * - Callback receiver in this process when REELFLOW_CALLBACK_PORT is set.
 * - Payload codec (AES-GCM) when REELFLOW_CODEC_KEYS is set (src/codec): the workers and
 *   the receiver's client encrypt every payload they write (failure messages and stacks
 *   included) and decrypt what they read.
 * - SIGINT/SIGTERM: the SDK's Runtime drains the workers (its shutdownSignals); then the
 *   receiver, the connections and the vendor clients are closed.
 *
 * Logs say where it listens and which task queues it polls; never a secret.
 */
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { buildCallbackUrl } from '../callbacks/token';
import { CodecConfigError, codecDataConverterOf, codecFromEnv } from '../codec';
import { startCallbackReceiver, type CallbackReceiver } from '../callbacks/receiver';
import {
  createVendorClient,
  loadVendorConfig,
  profileVariable,
  resolveProfile,
  VendorConfigError,
  type VendorClient,
} from '../vendor-api';
import { ensureWorkflowBundle } from './bundle';
import { describeWorkerConfig, loadWorkerConfig, WorkerConfigError, type Env, type WorkerConfig } from './config';
import { createReelflowWorkers } from './worker';

export interface WorkerProcessOptions {
  /** Default process.env. */
  env?: Env;
  /** Workflows module to bundle in memory instead of the prebuilt bundle (tests, development). */
  workflowsPath?: string;
  log?: (line: string) => void;
}

export interface RunningWorkerProcess {
  config: WorkerConfig;
  namespace: string;
  taskQueues: string[];
  /** Where the callback receiver listens, when it runs in this process. */
  receiverUrl?: string;
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
    clients.set(
      profile,
      createVendorClient({
        baseUrl: vendor.baseUrl,
        identityUrl: vendor.identityUrl,
        timeouts: vendor.timeouts,
        pathWord: vendor.pathWord,
        ...(creds.apiKey ? { apiKey: creds.apiKey } : {}),
        ...(creds.accessToken ? { accessToken: creds.accessToken } : {}),
      }),
    );
  }
  return clients;
}

export function activityDeps(config: WorkerConfig, clients: Map<string, VendorClient>): ActivityDeps {
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
    archiveAllowPrivate: config.archiveAllowPrivate,
    archiveMaxBytes: config.archiveMaxBytes,
  };
  const { callbackBaseUrl, callbackSecret } = config;
  if (callbackBaseUrl && callbackSecret) {
    deps.callbackUrlFor = (workflowId, step, attempt) =>
      buildCallbackUrl(callbackBaseUrl, callbackSecret, workflowId, step, attempt);
  }
  return deps;
}

function definedEnv(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

function installMetrics(bindAddress: string, log: (line: string) => void): void {
  try {
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress } } } });
    log(`metrics: Prometheus on http://${bindAddress}/metrics`);
  } catch {
    log(`metrics: not enabled (the SDK runtime was already installed in this process)`);
  }
}

/** Starts everything; the returned `done` settles when the process may exit. */
export async function startWorkerProcess(opts: WorkerProcessOptions = {}): Promise<RunningWorkerProcess> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((line: string) => console.log(`reelflow worker: ${line}`));
  const config = loadWorkerConfig(env);
  const clients = vendorClients(config, env);
  const codec = codecFromEnv(env);
  const dataConverter = codec ? codecDataConverterOf(codec) : undefined;
  const activities = createActivities(activityDeps(config, clients));
  if (config.metricsBind) installMetrics(config.metricsBind, log);

  const { connectionOptions, namespace: configuredNamespace } = loadClientConnectConfig(
    opts.env ? { overrideEnvVars: definedEnv(opts.env) } : {},
  );
  const namespace = configuredNamespace ?? 'default';
  const closers: (() => Promise<unknown>)[] = [() => Promise.all([...clients.values()].map((c) => c.close()))];
  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    closers.length = 0;
  };

  try {
    const connection = await NativeConnection.connect(connectionOptions);
    closers.push(() => connection.close());
    log(
      `connected to Temporal at ${connectionOptions.address ?? '(SDK default address)'}, namespace ${namespace}${
        connectionOptions.tls ? ', TLS' : ''
      }`,
    );
    log(describeWorkerConfig(config));
    log(codec ? `payload codec: AES-256-GCM, encrypting with key id ${codec.keyId}` : 'payload codec: off');

    const workflowSource = opts.workflowsPath
      ? { workflowsPath: opts.workflowsPath }
      : {
          workflowBundle: {
            codePath: (await ensureWorkflowBundle({ log, failureConverterPath: dataConverter?.failureConverterPath }))
              .codePath,
          },
        };
    const workers = await createReelflowWorkers({
      connection,
      namespace,
      config,
      activities,
      ...workflowSource,
      ...(dataConverter ? { workerOptions: { dataConverter } } : {}),
      log,
    });

    let receiver: CallbackReceiver | undefined;
    if (config.callbackPort !== undefined && config.callbackSecret) {
      const clientConnection = await Connection.connect(connectionOptions);
      closers.push(() => clientConnection.close());
      receiver = await startCallbackReceiver({
        host: config.callbackHost,
        port: config.callbackPort,
        secret: config.callbackSecret,
        client: new Client({ connection: clientConnection, namespace, ...(dataConverter ? { dataConverter } : {}) }),
        log: (line) => log(line),
      });
      const started = receiver;
      closers.push(() => started.close());
      log(`callback receiver listening on ${config.callbackHost}:${receiver.port} (POST /callbacks/…, GET /healthz)`);
    }

    const done = workers.run().finally(closeAll);
    log(`polling ${workers.workers.map((w) => w.taskQueue).join(', ')}`);
    return {
      config,
      namespace,
      taskQueues: workers.workers.map((w) => w.taskQueue),
      ...(receiver ? { receiverUrl: receiver.url } : {}),
      shutdown: () => workers.shutdown(),
      done,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** Errors of configuration are printed as their (secret-free) message; others with a stack. */
function describeStartupError(err: unknown): string {
  if (err instanceof WorkerConfigError || err instanceof VendorConfigError || err instanceof CodecConfigError) {
    return err.message;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

if (require.main === module) {
  startWorkerProcess()
    .then((w) => w.done)
    .then(
      () => {
        console.log('reelflow worker: stopped');
        process.exit(0);
      },
      (err: unknown) => {
        console.error(`reelflow worker: ${describeStartupError(err)}`);
        process.exit(1);
      },
    );
}
