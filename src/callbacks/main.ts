/**
 * The callback receiver as a process of its own, for deployments where the public-facing
 * receiver runs apart from the workers: `node dist/src/callbacks/main.js`.
 *
 *   REELFLOW_CALLBACK_SECRET (required, the workers' secret), REELFLOW_CALLBACK_PORT
 *   (default 8089), REELFLOW_CALLBACK_HOST (default 0.0.0.0); Temporal connection from
 *   envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS, profiles).
 *
 * SIGINT/SIGTERM close it. Logs never carry the secret or a token.
 */
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { loadWorkerConfig, WorkerConfigError } from '../workers/config';
import { startCallbackReceiver } from './receiver';

export const DEFAULT_CALLBACK_PORT = 8089;

async function main(): Promise<void> {
  const log = (line: string): void => console.log(`reelflow callbacks: ${line}`);
  const config = loadWorkerConfig({
    ...process.env,
    REELFLOW_CALLBACK_PORT: process.env.REELFLOW_CALLBACK_PORT || String(DEFAULT_CALLBACK_PORT),
  });
  const { connectionOptions, namespace = 'default' } = loadClientConnectConfig();
  const connection = await Connection.connect(connectionOptions);
  const receiver = await startCallbackReceiver({
    host: config.callbackHost,
    port: config.callbackPort ?? DEFAULT_CALLBACK_PORT,
    secret: config.callbackSecret!, // required by loadWorkerConfig once a port is set
    client: new Client({ connection, namespace }),
    log,
  });
  log(`listening on ${config.callbackHost}:${receiver.port}; signalling workflows in namespace ${namespace} at ${connectionOptions.address ?? '(SDK default address)'}`);
  const stop = (signal: string): void => {
    log(`${signal}: closing`);
    void receiver
      .close()
      .then(() => connection.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`reelflow callbacks: ${err instanceof WorkerConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  });
}
