/**
 * src/callbacks/ is INBOUND: the vendor calls reelflow back about a task it created
 * (capability URLs, the receiver, signals to the pipeline). Its outbound counterpart,
 * src/webhooks/, is reelflow calling the user's backend (docs/architecture.md, "Layout").
 *
 * The callback receiver as a process of its own, for deployments where the public-facing
 * receiver runs apart from the workers: `node dist/callbacks/main.js`.
 *
 *   REELFLOW_CALLBACK_SECRET (required, the workers' secret), REELFLOW_CALLBACK_PORT
 *   (default 8089), REELFLOW_CALLBACK_HOST (default 0.0.0.0): its own config (config.ts),
 *   none of the worker's; Temporal connection from envconfig (TEMPORAL_ADDRESS,
 *   TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS, profiles); the payload codec from
 *   REELFLOW_CODEC_KEYS / REELFLOW_CODEC_KEY_ID when set (src/codec).
 *
 * SIGINT/SIGTERM close it. Logs are JSON lines on stdout at REELFLOW_LOG_LEVEL
 * (src/telemetry/logger.ts) and never carry the secret or a token. When Temporal cannot
 * be reached at start, it says which address it tried and exits 1 (no gRPC stack).
 */
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { CodecConfigError, codecDataConverter } from '../codec';
import { createLogger, lineDestination, lineLogger, type Logger } from '../telemetry/logger';
import { startTracing, tracingClientInterceptors } from '../telemetry/tracing';
import { printable } from '../contract/printable';
import { ConfigError } from '../config/env';
import { definedEnv, describeStartupError } from '../config/startup';
import { loadReceiverConfig } from './config';
import { startCallbackReceiver, type CallbackReceiver } from './receiver';
import { connectTemporal } from '../config/temporal-connection';

/** What the SDK connects to when no address is configured. */
const SDK_DEFAULT_ADDRESS = 'localhost:7233';

/** Temporal could not be reached: the message names the address tried, and nothing else of the connection. */
export class TemporalUnreachableError extends Error {
  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    const first = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0] ?? '';
    super(
      `cannot reach Temporal at ${address} (${printable(first, 200)}); ` +
        'start it, or set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TLS, TEMPORAL_API_KEY) to where it runs',
    );
    this.name = 'TemporalUnreachableError';
  }
}

export interface StandaloneReceiver {
  receiver: CallbackReceiver;
  close(): Promise<void>;
}

export interface StandaloneReceiverOptions {
  /** Default process.env. */
  env?: Record<string, string | undefined>;
  /** The JSON logger. Default: pino on stdout at REELFLOW_LOG_LEVEL. */
  logger?: Logger;
  /** Instead of stdout: each JSON line, as a string (tests). */
  log?: (line: string) => void;
}

export async function startStandaloneReceiver(opts: StandaloneReceiverOptions = {}): Promise<StandaloneReceiver> {
  const env = opts.env ?? process.env;
  const config = loadReceiverConfig(env);
  // Signals carry callback payloads: encrypted like every other payload when the codec is on.
  const dataConverter = codecDataConverter(env);
  const destination = opts.log ? { destination: lineDestination(opts.log) } : {};
  const log = lineLogger(
    opts.logger ?? createLogger({ name: 'reelflow-callbacks', level: config.logLevel, env, ...destination }),
  );
  const { connectionOptions, namespace = 'default' } = loadClientConnectConfig({ overrideEnvVars: definedEnv(env) });
  const address = connectionOptions.address ?? SDK_DEFAULT_ADDRESS;
  let connection: Connection;
  try {
    connection = await connectTemporal(connectionOptions);
  } catch (err) {
    throw new TemporalUnreachableError(address, err);
  }
  // Traced, each callback is a trace: this signal → the workflow's handler.
  const tracing = await startTracing(env, 'reelflow-callbacks');
  const closeAll = async (): Promise<void> => {
    await connection.close();
    await tracing?.shutdown();
  };
  const receiver = await startCallbackReceiver({
    host: config.host,
    port: config.port,
    secret: config.secret,
    ...config.limits,
    client: new Client({
      connection,
      namespace,
      ...(dataConverter ? { dataConverter } : {}),
      ...(await tracingClientInterceptors(env)),
    }),
    log,
    temporalAddress: address,
  }).catch(async (err: unknown) => {
    await closeAll();
    throw err;
  });
  log(`listening on ${config.host}:${receiver.port}; signalling workflows in namespace ${namespace} at ${address}`);
  return { receiver, close: () => receiver.close().then(closeAll) };
}

/** Printed as their own message at start-up (src/config/startup.ts); any other error keeps its stack. */
const PLAIN_STARTUP_ERRORS = [ConfigError, CodecConfigError, TemporalUnreachableError];

if (require.main === module) {
  // Before the configuration is read (it may be what failed), lines go out at the default level.
  const processLogger = createLogger({ name: 'reelflow-callbacks' });
  startStandaloneReceiver().then(
    (running) => {
      const stop = (signal: string): void => {
        processLogger.info(`${signal}: closing`);
        void running.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err: unknown) => {
      processLogger.fatal(describeStartupError(err, PLAIN_STARTUP_ERRORS));
      process.exit(1);
    },
  );
}
