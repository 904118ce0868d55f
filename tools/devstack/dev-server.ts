/**
 * Runs `temporal server start-dev` as a child process: SQLite file, Web UI, our search
 * attributes (registered through the operator API, so an existing DB file gets them too)
 * and the dynamic config our GetAsset rate limit relies on. Waits until the frontend
 * answers — the SDK's createLocal allows only 5 s, which a 2-core machine can exceed.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { registerSearchAttributes } from '../../src/starters/client/register-search-attributes';
import { stopChild, waitUntilServing } from './server-process';

export interface DevServerOptions {
  cli: string;
  /** SQLite file; its folder is created. Undefined = in-memory. */
  dbFile?: string;
  ip?: string;
  port?: number; // 0 or undefined = a free port
  uiPort?: number; // 0 or undefined = a free port
  headless?: boolean;
  namespace?: string;
  /** Server output goes here (a file), so it never interleaves with ours. */
  logFile?: string;
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface DevServer {
  address: string;
  namespace: string;
  uiUrl?: string;
  pid: number;
  /** Stop and start again on the same ports and DB file (chaos runs). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One read/write partition per task queue: a task-queue rate limit is then enforced by
 * one matcher, exactly, instead of being split across partitions. Eager activities: an
 * activity the workflow schedules on its own task queue comes back with the workflow
 * task's completion, without a trip through matching (the GetAsset queues are other
 * queues, so their rate limit still applies). The same settings: deploy/dynamicconfig.yaml.
 */
export const DEV_DYNAMIC_CONFIG: Record<string, unknown> = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'system.enableActivityEagerExecution': true,
  // Task-queue priority and fairness (docs/tenants.md#fair-share-of-the-vendor): the matcher
  // that honours the tasks' priority and fairness keys; migration (1.30+; 1.29 ignores it)
  // moves a queue's existing backlog onto it.
  'matching.useNewMatcher': true,
  'matching.enableFairness': true,
  'matching.enableMigration': true,
};

/**
 * The SQLite file in write-ahead-log mode with `synchronous=NORMAL`: a commit no longer waits
 * for several fsyncs (SQLite's defaults, DELETE + FULL, made the disk the dev server's
 * bottleneck). A killed process loses nothing committed; only a power loss or an OS crash
 * can drop the last transactions, which a development server accepts.
 */
export const DEV_SQLITE_PRAGMAS: Record<string, string> = { journal_mode: 'wal', synchronous: 'normal' };

function sqlitePragmaArgs(): string[] {
  return Object.entries(DEV_SQLITE_PRAGMAS).flatMap(([k, v]) => ['--sqlite-pragma', `${k}=${v}`]);
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  const port = opts.port || (await freePort(ip));
  const uiPort = opts.headless ? undefined : opts.uiPort || (await freePort(ip));
  const namespace = opts.namespace ?? 'default';
  const address = `${ip}:${port}`;
  const log = opts.log ?? (() => undefined);
  if (opts.dbFile) mkdirSync(path.dirname(opts.dbFile), { recursive: true });

  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
  ];
  if (opts.dbFile) args.push('--db-filename', opts.dbFile, ...sqlitePragmaArgs());
  if (uiPort) args.push('--ui-port', String(uiPort), '--ui-ip', ip);
  else args.push('--headless');
  for (const [key, value] of Object.entries(DEV_DYNAMIC_CONFIG)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }

  let child: ChildProcess;
  const launch = async (): Promise<void> => {
    const out = opts.logFile ? openSync(opts.logFile, 'a') : 'ignore';
    child = spawn(opts.cli, args, { stdio: ['ignore', out, out] });
    const connection = await waitUntilServing('temporal dev server', address, child, opts.startTimeoutMs ?? 120_000);
    try {
      const added = await registerSearchAttributes(connection, namespace);
      if (added.length) log(`temporal: registered search attributes ${added.join(', ')}`);
    } finally {
      await connection.close();
    }
  };
  const stop = (): Promise<void> => stopChild(child);
  await launch();
  return {
    address,
    namespace,
    uiUrl: uiPort ? `http://${ip}:${uiPort}` : undefined,
    get pid() {
      return child.pid ?? -1;
    },
    restart: async () => {
      await stop();
      await launch();
    },
    stop,
  };
}
