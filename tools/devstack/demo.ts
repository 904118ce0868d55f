/**
 * `npm run demo`: the whole stack on this machine, then one pipeline through all four
 * stages with the live display of `reelflow run`.
 *
 *   1. Temporal dev server (tools/devstack): SQLite file under .data/, Web UI on;
 *   2. the vendor emulator (src/emulator) on a local port;
 *   3. the worker process (src/workers/main: workers, activities, callback receiver);
 *   4. examples/pipeline.json started and followed; result and Web UI link printed;
 *   5. everything stopped (or kept up until Ctrl-C with --keep).
 *
 * Ports come from REELFLOW_DEMO_TEMPORAL_PORT, REELFLOW_DEMO_UI_PORT,
 * REELFLOW_DEMO_EMULATOR_PORT and REELFLOW_DEMO_CALLBACK_PORT, else free ones.
 * The stack's own output goes to log files under .data/demo/ so the display stays clean.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  DEFAULT_ACCESS_TOKENS,
  DEFAULT_API_KEYS,
  startEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '../../src/emulator';
import { reportError } from '../../src/starters/cli/errors';
import { exitCodeOf, followWithDisplay, outcomeMessages } from '../../src/starters/cli/follow';
import { EXIT } from '../../src/starters/cli/output';
import { loadDefinitionFile, type LoadedDefinition } from '../../src/starters/client/definition-file';
import { startPipeline, type PipelineOutcome } from '../../src/starters/client/pipeline-client';
import { renderFailure, renderResult, type OutputStream } from '../../src/starters/client/progress';
import { startWorkerProcess, type RunningWorkerProcess } from '../../src/workers/main';
import { freePort, type DevServer } from './dev-server';
import { startLocalTemporal } from './local-temporal';
import { repoRoot } from './temporal-cli';
import { connectTemporal } from '../../src/config/temporal-connection';

export const DEMO_TASK_QUEUE = 'reelflow';

export interface DemoOptions {
  /** Default examples/pipeline.json of this package. */
  definitionFile?: string;
  /** Keep the stack up after the pipeline until `signal` aborts (Ctrl-C). */
  keep?: boolean;
  /** Default <package>/.data. */
  dataDir?: string;
  ports?: { temporal?: number; ui?: number; emulator?: number; callback?: number };
  /** No Web UI (tests). */
  headless?: boolean;
  out?: OutputStream;
  err?: OutputStream;
  signal?: AbortSignal;
  /** Install the SDK Runtime with a logger into the demo log (default true; false when one is installed already). */
  installRuntime?: boolean;
  /** Bundle this workflows module in memory instead of the prebuilt bundle (tests). */
  workflowsPath?: string;
  emulator?: EmulatorOptions;
  /** Between status queries (default 500 ms). */
  intervalMs?: number;
}

export interface DemoReport {
  code: number;
  workflowId?: string;
  webUiUrl?: string;
  outcome?: PipelineOutcome;
}

const PORT_VARIABLES = {
  temporal: 'REELFLOW_DEMO_TEMPORAL_PORT',
  ui: 'REELFLOW_DEMO_UI_PORT',
  emulator: 'REELFLOW_DEMO_EMULATOR_PORT',
  callback: 'REELFLOW_DEMO_CALLBACK_PORT',
} as const;

export class DemoUsageError extends Error {
  override readonly name = 'DemoUsageError';
}

/** Ports from the environment; a bad value names its variable. */
export function portsFromEnv(env: NodeJS.ProcessEnv): NonNullable<DemoOptions['ports']> {
  const ports: NonNullable<DemoOptions['ports']> = {};
  for (const [key, variable] of Object.entries(PORT_VARIABLES) as [keyof typeof PORT_VARIABLES, string][]) {
    const raw = env[variable]?.trim();
    if (!raw) continue;
    const port = Number(raw);
    if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
      throw new DemoUsageError(`${variable} must be a port number 1-65535`);
    }
    ports[key] = port;
  }
  return ports;
}

/** The process environment for the worker: ours only, nothing inherited that could point elsewhere. */
function workerEnv(base: NodeJS.ProcessEnv, own: Record<string, string>): Record<string, string> {
  const kept = Object.entries(base).filter(
    (e): e is [string, string] => typeof e[1] === 'string' && !/^(TEMPORAL_|VENDOR_|REELFLOW_)/.test(e[0]),
  );
  return { ...Object.fromEntries(kept), ...own };
}

function waitForAbort(signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** What runDemo started, stopped in reverse order at the end (a failure to stop one is logged). */
class Stack {
  private readonly stops: { name: string; stop: () => Promise<unknown> }[] = [];

  constructor(private readonly log: (line: string) => void) {}

  add(name: string, stop: () => Promise<unknown>): void {
    this.stops.push({ name, stop });
  }

  get empty(): boolean {
    return this.stops.length === 0;
  }

  async stopAll(): Promise<void> {
    for (const { name, stop } of this.stops.reverse()) {
      try {
        await stop();
      } catch (e) {
        this.log(`stopping ${name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.stops.length = 0;
  }
}

/** One demo run: where its files go, what it prints (say) and logs (log), and what it started. */
interface Demo {
  opts: DemoOptions;
  ports: NonNullable<DemoOptions['ports']>;
  root: string;
  dataDir: string;
  logDir: string;
  out: OutputStream;
  err: OutputStream;
  say: (line?: string) => void;
  log: (line: string) => void;
  /** A path as short as it reads from the current folder. */
  rel: (p: string) => string;
  aborted: () => boolean;
  stack: Stack;
}

function newDemo(opts: DemoOptions): Demo {
  const out = opts.out ?? process.stdout;
  const root = repoRoot();
  const dataDir = path.resolve(opts.dataDir ?? path.join(root, '.data'));
  const logDir = path.join(dataDir, 'demo');
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, 'demo.log');
  const log = (line: string) => appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
  return {
    opts,
    ports: opts.ports ?? {},
    root,
    dataDir,
    logDir,
    out,
    err: opts.err ?? process.stderr,
    say: (line = '') => out.write(`${line}\n`),
    log,
    rel: (p: string) => path.relative(process.cwd(), p) || '.',
    aborted: () => opts.signal?.aborted === true,
    stack: new Stack(log),
  };
}

/** 1. The Temporal dev server: SQLite under the data dir, Web UI on unless headless. */
async function startTemporal(demo: Demo): Promise<DevServer> {
  const { opts, ports, rel, log, err } = demo;
  const dbFile = path.join(demo.dataDir, 'temporal.db');
  const serverLog = path.join(demo.logDir, 'temporal.log');
  let server: DevServer;
  try {
    server = await startLocalTemporal({
      dbFile,
      logFile: serverLog,
      headless: opts.headless ?? false,
      ...(ports.temporal ? { port: ports.temporal } : {}),
      ...(ports.ui ? { uiPort: ports.ui } : {}),
      log: (line) => {
        if (line.startsWith('temporal:')) err.write(`${line}\n`);
        log(line);
      },
    });
  } catch (e) {
    throw new Error(
      `${e instanceof Error ? e.message : String(e)} (see ${rel(serverLog)}; is another demo using ${rel(dbFile)}?)`,
    );
  }
  demo.stack.add('temporal dev server', () => server.stop());
  demo.say(`  temporal   ${server.address}${server.uiUrl ? ` · Web UI ${server.uiUrl}` : ''} · ${rel(dbFile)}`);
  return server;
}

/** 2. The vendor emulator, in this process. */
async function startDemoEmulator(demo: Demo): Promise<RunningEmulator> {
  const emulator: RunningEmulator = await startEmulator({
    host: '127.0.0.1',
    port: demo.ports.emulator ?? 0,
    ...demo.opts.emulator,
  });
  demo.stack.add('emulator', () => emulator.close());
  demo.say(`  emulator   ${emulator.url} (vendor API: generation, erase, assets, review)`);
  return emulator;
}

/** 3. The worker process: workers, activities and the callback receiver. */
async function startWorker(demo: Demo, server: DevServer, emulatorUrl: string): Promise<void> {
  const { say, log } = demo;
  const callbackPort = demo.ports.callback ?? (await freePort('127.0.0.1'));
  const temporalConfig = path.join(demo.logDir, 'temporal.toml');
  writeFileSync(
    temporalConfig,
    `# written by the reelflow demo\n[profile.default]\naddress = "${server.address}"\nnamespace = "${server.namespace}"\n`,
  );
  const env = workerEnv(process.env, {
    TEMPORAL_CONFIG_FILE: temporalConfig,
    ...localWorkerEnv({
      server,
      emulatorUrl,
      taskQueue: DEMO_TASK_QUEUE,
      archiveDir: path.join(demo.dataDir, 'archive'),
      callbackPort,
    }),
  });
  say('  worker     starting (the first run bundles the workflow code, which takes a while)…');
  const worker: RunningWorkerProcess = await startWorkerProcess({
    env,
    log: (line) => log(`[worker] ${line}`),
    ...(demo.opts.workflowsPath ? { workflowsPath: demo.opts.workflowsPath } : {}),
  });
  const workerDone = worker.done.catch((e: unknown) =>
    log(`[worker] stopped with ${e instanceof Error ? e.message : String(e)}`),
  );
  demo.stack.add('worker', async () => {
    worker.shutdown();
    await workerDone;
  });
  say(
    `  worker     task queues ${worker.taskQueues.join(', ')}${worker.receiverUrl ? ` · callbacks ${worker.receiverUrl}` : ''}`,
  );
  say(`  logs       ${demo.rel(demo.logDir)}/`);
}

/**
 * 4. The pipeline, started and followed with the live display; its result (or failure)
 * printed. False when interrupted: the pipeline is cancelled then, while the worker is up.
 */
async function runPipeline(
  demo: Demo,
  server: DevServer,
  loaded: LoadedDefinition,
  report: DemoReport,
): Promise<boolean> {
  const { say, opts } = demo;
  const connection = await connectTemporal({ address: server.address });
  demo.stack.add('client connection', () => connection.close());
  const client = new Client({ connection, namespace: server.namespace });
  const handle = await startPipeline(client, loaded.input, { taskQueue: DEMO_TASK_QUEUE });
  report.workflowId = handle.workflowId;
  const link = server.uiUrl
    ? `${server.uiUrl}/namespaces/${server.namespace}/workflows/${encodeURIComponent(handle.workflowId)}`
    : undefined;
  if (link) report.webUiUrl = link;
  say();
  say(`running ${demo.rel(loaded.source)} as ${handle.workflowId}`);
  say();
  let outcome: PipelineOutcome;
  try {
    outcome = await followWithDisplay(
      client,
      handle.workflowId,
      { stdout: demo.out },
      {
        json: false,
        taskQueue: DEMO_TASK_QUEUE,
        intervalMs: opts.intervalMs ?? 500,
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
    );
  } catch (e) {
    if (!demo.aborted()) throw e;
    // Its vendor (this emulator) goes away with the demo: cancel it while the worker is up.
    say(`\ninterrupted: cancelling ${handle.workflowId} (Ctrl-C again to quit at once)`);
    await client
      .withDeadline(Date.now() + 20_000, async () => {
        await handle.cancel();
        await handle.result();
      })
      .catch(() => undefined);
    return false;
  }
  report.outcome = outcome;
  report.code = exitCodeOf(outcome);
  say();
  const lines =
    outcome.status === 'completed'
      ? renderResult(outcome.result)
      : renderFailure(`pipeline ${outcome.workflowId} ${outcome.status}`, outcomeMessages(outcome));
  for (const line of lines) say(line);
  say();
  if (link) say(`Web UI: ${link}`);
  return true;
}

/**
 * The environment `reelflow doctor` and the CLI need against the kept stack: Temporal, the
 * emulator, the default profile's API key and access token, the worker's task queue and
 * archive folder. The key and token are the emulator's built-in test values, printed in
 * docs/emulator.md: no one's secret. The callback secret is one (random per run), so the
 * receiver's variables stay out, and doctor skips the callback check.
 */
export function keptStackEnv(o: {
  server: Pick<DevServer, 'address' | 'namespace' | 'uiUrl'>;
  emulatorUrl: string;
  archiveDir: string;
}): string[] {
  const ui = o.server.uiUrl ? ` TEMPORAL_UI_URL=${o.server.uiUrl}` : '';
  return [
    `export TEMPORAL_ADDRESS=${o.server.address} TEMPORAL_NAMESPACE=${o.server.namespace}${ui}`,
    `export VENDOR_BASE_URL=${o.emulatorUrl} VENDOR_IDENTITY_URL=${o.emulatorUrl}`,
    `export REELFLOW_PROFILE_DEFAULT_API_KEY=${DEFAULT_API_KEYS[0]} REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN=${DEFAULT_ACCESS_TOKENS[0]}   # the emulator's built-in test key and token: not secrets`,
    `export REELFLOW_TASK_QUEUE=${DEMO_TASK_QUEUE} REELFLOW_ARCHIVE_DIR=${o.archiveDir}`,
  ];
}

/** 5. With --keep: how to use the stack from another shell, then wait for Ctrl-C. */
async function keepUp(demo: Demo, server: DevServer, emulatorUrl: string): Promise<void> {
  const { say } = demo;
  say();
  say('The stack stays up; Ctrl-C stops it. From another shell:');
  for (const line of keptStackEnv({ server, emulatorUrl, archiveDir: path.join(demo.dataDir, 'archive') }))
    say(`  ${line}`);
  say(`  npx reelflow doctor · npx reelflow list · npx reelflow run examples/generation-only.json`);
  await waitForAbort(demo.opts.signal);
}

/** Runs the demo; resolves with the exit code (0 when the pipeline completed). */
export async function runDemo(opts: DemoOptions = {}): Promise<DemoReport> {
  const demo = newDemo(opts);
  // Validate before starting anything.
  const definitionFile = opts.definitionFile ?? path.join(demo.root, 'examples', 'pipeline.json');
  const loaded = await loadDefinitionFile(definitionFile, { allowPrivateHosts: true }); // against the local emulator

  if (opts.installRuntime !== false) {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => demo.log(`[sdk ${entry.level}] ${entry.message}`)),
      shutdownSignals: [],
    });
  }

  const report: DemoReport = { code: EXIT.failed };
  try {
    demo.say('reelflow demo: the whole stack on this machine');
    const server = await startTemporal(demo);
    if (demo.aborted()) return { code: EXIT.interrupted };
    const emulator = await startDemoEmulator(demo);
    if (demo.aborted()) return { code: EXIT.interrupted };
    await startWorker(demo, server, emulator.url);
    if (demo.aborted()) return { code: EXIT.interrupted };
    if (!(await runPipeline(demo, server, loaded, report))) return { ...report, code: EXIT.interrupted };
    if (opts.keep && !demo.aborted()) await keepUp(demo, server, emulator.url);
    return report;
  } finally {
    if (!demo.stack.empty) {
      demo.out.write('stopping the stack… ');
      await demo.stack.stopAll();
      demo.say('done');
    }
  }
}

const HELP = `usage: npm run demo [-- --keep] [-- --definition <file>]

Starts the Temporal dev server (Web UI on, SQLite under .data/), the vendor emulator,
the callback receiver and the reelflow worker, runs examples/pipeline.json through
review → assets → generation → erase with a live display, prints the result and the
Web UI link, then stops everything.

options:
  --keep               keep the stack up after the pipeline until Ctrl-C
  --definition <file>  run this definition instead of examples/pipeline.json
  -h, --help           show this help

ports (default: free ones): ${Object.values(PORT_VARIABLES).join(', ')}
exit code: 0 completed, 1 failed, 2 usage, 3 cancelled, 130 interrupted
`;

export async function main(argv = process.argv.slice(2)): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { keep: { type: 'boolean' }, definition: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (e) {
    process.stderr.write(`reelflow demo: ${e instanceof Error ? e.message : String(e)}\n${HELP}`);
    return EXIT.usage;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(EXIT.interrupted);
    abort.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const report = await runDemo({
      keep: values.keep === true,
      ...(values.definition ? { definitionFile: path.resolve(values.definition) } : {}),
      ports: portsFromEnv(process.env),
      signal: abort.signal,
    });
    return report.code;
  } catch (e) {
    if (e instanceof DemoUsageError) {
      process.stderr.write(`reelflow demo: ${e.message}\n`);
      return EXIT.usage;
    }
    const r = reportError(e);
    for (const line of r.lines) process.stderr.write(`${line.replace(/^reelflow: /, 'reelflow demo: ')}\n`);
    return r.code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * The environment of a worker process on a local stack (dev server, emulator, callbacks on
 * loopback, a fresh callback secret): what the demo and the screenshot script both run.
 */
export function localWorkerEnv(o: {
  server: { address: string; namespace: string };
  emulatorUrl: string;
  taskQueue: string;
  archiveDir: string;
  callbackPort: number;
}): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: o.server.address,
    TEMPORAL_NAMESPACE: o.server.namespace,
    VENDOR_BASE_URL: o.emulatorUrl,
    VENDOR_IDENTITY_URL: o.emulatorUrl,
    REELFLOW_PROFILE_DEFAULT_API_KEY: DEFAULT_API_KEYS[0],
    REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: DEFAULT_ACCESS_TOKENS[0],
    REELFLOW_TASK_QUEUE: o.taskQueue,
    REELFLOW_ARCHIVE_DIR: o.archiveDir,
    REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves media on 127.0.0.1
    REELFLOW_CALLBACK_PORT: String(o.callbackPort),
    REELFLOW_CALLBACK_HOST: '127.0.0.1',
    REELFLOW_CALLBACK_BASE_URL: `http://127.0.0.1:${o.callbackPort}`,
    REELFLOW_CALLBACK_SECRET: randomBytes(24).toString('hex'),
  };
}

if (require.main === module) {
  // Exit explicitly: the SDK's native runtime may keep the event loop alive.
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`reelflow demo: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(EXIT.failed);
    },
  );
}
