/**
 * The callback receiver as a process of its own, for deployments where the public-facing
 * receiver runs apart from the workers: `node dist/src/callbacks/main.js`.
 *
 *   REELFLOW_CALLBACK_SECRET (required, the workers' secret), REELFLOW_CALLBACK_PORT
 *   (default 8089), REELFLOW_CALLBACK_HOST (default 0.0.0.0): its own config (config.ts),
 *   none of the worker's; Temporal connection from envconfig (TEMPORAL_ADDRESS,
 *   TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS, profiles); the payload codec from
 *   REELFLOW_CODEC_KEYS / REELFLOW_CODEC_KEY_ID when set (src/codec).
 *
 * SIGINT/SIGTERM close it. Logs never carry the secret or a token. When Temporal cannot
 * be reached at start, it says which address it tried and exits 1 (no gRPC stack).
 */
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { CodecConfigError, codecDataConverter } from '../codec';
import { printable } from '../workflows/lib/printable';
import { ConfigError, loadReceiverConfig } from './config';
import { startCallbackReceiver, type CallbackReceiver } from './receiver';

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

export async function startStandaloneReceiver(
  opts: { env?: Record<string, string | undefined>; log?: (line: string) => void } = {},
): Promise<StandaloneReceiver> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((line: string) => console.log(`reelflow callbacks: ${line}`));
  const config = loadReceiverConfig(env);
  // Signals carry callback payloads: encrypted like every other payload when the codec is on.
  const dataConverter = codecDataConverter(env);
  const overrideEnvVars = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const { connectionOptions, namespace = 'default' } = loadClientConnectConfig({ overrideEnvVars });
  const address = connectionOptions.address ?? SDK_DEFAULT_ADDRESS;
  let connection: Connection;
  try {
    connection = await Connection.connect(connectionOptions);
  } catch (err) {
    throw new TemporalUnreachableError(address, err);
  }
  const receiver = await startCallbackReceiver({
    host: config.host,
    port: config.port,
    secret: config.secret,
    client: new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}) }),
    log,
    temporalAddress: address,
  }).catch(async (err: unknown) => {
    await connection.close();
    throw err;
  });
  log(`listening on ${config.host}:${receiver.port}; signalling workflows in namespace ${namespace} at ${address}`);
  return { receiver, close: () => receiver.close().then(() => connection.close()) };
}

/** Configuration and connection errors are their own (secret-free) message; others keep a stack. */
function describeStartupError(err: unknown): string {
  if (err instanceof ConfigError || err instanceof CodecConfigError || err instanceof TemporalUnreachableError) {
    return err.message;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

if (require.main === module) {
  startStandaloneReceiver().then(
    (running) => {
      const stop = (signal: string): void => {
        console.log(`reelflow callbacks: ${signal}: closing`);
        void running.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err: unknown) => {
      console.error(`reelflow callbacks: ${describeStartupError(err)}`);
      process.exit(1);
    },
  );
}
