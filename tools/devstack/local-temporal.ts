/**
 * A local Temporal server for the demo, the dev stack and the tests: the Temporal CLI's
 * dev server when a CLI can be found or built (tools/devstack/temporal-cli.ts), else — on a
 * machine with internet and no Go — the SDK's own download of it (@temporalio/testing,
 * a dev dependency). Either way our search attributes are registered.
 */
import { registerSearchAttributes } from '../../src/starters/client/register-search-attributes';
import { DEV_DYNAMIC_CONFIG, startDevServer, type DevServer, type DevServerOptions } from './dev-server';
import { findTemporalCli } from './temporal-cli';

export type LocalTemporalOptions = Omit<DevServerOptions, 'cli'>;

export async function startLocalTemporal(opts: LocalTemporalOptions): Promise<DevServer> {
  const log = opts.log ?? (() => undefined);
  const cli = findTemporalCli(log);
  if (cli) return startDevServer({ ...opts, cli: cli.path });
  return startWithSdkDownload(opts, log);
}

async function startWithSdkDownload(opts: LocalTemporalOptions, log: (line: string) => void): Promise<DevServer> {
  log('temporal: falling back to the SDK download of the dev server (needs internet; the SDK allows it 5 s to start)');
  let testing: typeof import('@temporalio/testing');
  try {
    testing = await import('@temporalio/testing');
  } catch {
    throw new Error(
      'no Temporal CLI, no Go toolchain, and @temporalio/testing is not installed: set TEMPORAL_CLI or install Go',
    );
  }
  const namespace = opts.namespace ?? 'default';
  const env = await testing.TestWorkflowEnvironment.createLocal({
    server: {
      ip: opts.ip ?? '127.0.0.1',
      namespace,
      ...(opts.port ? { port: opts.port } : {}),
      ...(opts.dbFile ? { dbFilename: opts.dbFile } : {}),
      ui: !opts.headless,
      ...(opts.uiPort ? { uiPort: opts.uiPort } : {}),
      extraArgs: Object.entries(DEV_DYNAMIC_CONFIG).flatMap(([k, v]) => [
        '--dynamic-config-value',
        `${k}=${JSON.stringify(v)}`,
      ]),
    },
  });
  await registerSearchAttributes(env.connection, namespace);
  const address = env.connection.options.address;
  return {
    address,
    namespace,
    pid: -1,
    restart: () =>
      Promise.reject(new Error('restart needs the Temporal CLI (the SDK-downloaded server cannot be restarted)')),
    stop: () => env.teardown(),
  };
}
