/**
 * A real Temporal server on PostgreSQL, started as a child process: binaries found or
 * built, role and databases created, schemas set up or updated, config written, server
 * started, namespace and search attributes registered. The handle has the dev server's
 * shape (tools/devstack/dev-server.ts), so callers can take either.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import type { DevServer } from '../dev-server';
import { stopChild, waitUntilServing } from '../server-process';
import { repoRoot } from '../temporal-cli';
import { findClusterBinaries, type ClusterBinaries } from './binaries';
import { CONFIG_ENV, PASSWORD_ENV, writeConfig } from './config';
import { ensureNamespace } from './namespace';
import { choosePorts } from './ports';
import { databaseFromEnv, ensureDatabases, visibilityDatabase, type ClusterDatabase } from './postgres';
import { applySchemas } from './schema';

export const DEFAULT_SHARDS = 4;
/** Every service binds loopback (bindOnLocalHost in the config). */
const LOOPBACK = '127.0.0.1';

export interface ClusterOptions {
  /** Holds config/ and server.log (created). */
  dataDir: string;
  /** Persistence database; visibility is `<database>_visibility`. */
  database: string;
  /** History shards; fixed when the databases are first set up (reset to change). */
  shards?: number;
  /** Frontend gRPC port; 0 or undefined = a free one. The other ports are always free ones. */
  port?: number;
  namespace?: string;
  retentionDays?: number;
  /** Drop both databases first (a clean cluster). */
  reset?: boolean;
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface RunningCluster extends DevServer {
  shards: number;
  databases: string[];
  metricsUrl: string;
  configFile: string;
  logFile: string;
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

export async function startCluster(opts: ClusterOptions): Promise<RunningCluster> {
  const log = opts.log ?? (() => undefined);
  const ip = LOOPBACK;
  const shards = opts.shards ?? DEFAULT_SHARDS;
  if (!Number.isInteger(shards) || shards < 1)
    throw new Error(`history shards must be a whole number ≥ 1, got ${shards}`);
  const namespace = opts.namespace ?? 'default';
  const bins = findClusterBinaries(log);
  const db = prepareDatabases(bins, opts, log);
  const ports = await choosePorts(ip, opts.port);
  const configFile = writeConfig(path.join(opts.dataDir, 'config'), {
    ip,
    shards,
    ports,
    db,
    dynamicConfigFile: path.join(repoRoot(), 'deploy', 'dynamicconfig.yaml'),
  });
  const logFile = path.join(opts.dataDir, 'server.log');
  const address = `${ip}:${ports.frontend}`;
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const t = Date.now();
    child = spawnServer(bins.server, opts.dataDir, logFile, db.password);
    const connection = await waitForServer(address, child, logFile, opts.startTimeoutMs ?? 180_000);
    try {
      log(`temporal-server: answering on ${address} (${seconds(t)})`);
      await checkShards(connection, shards);
      await ensureNamespace(connection, { namespace, retentionDays: opts.retentionDays ?? 3, log });
    } finally {
      await connection.close();
    }
  };
  const stop = () => stopChild(child);
  try {
    await launch();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    address,
    namespace,
    shards,
    databases: [db.database, visibilityDatabase(db)],
    metricsUrl: `http://${ip}:${ports.metrics}/metrics`,
    configFile,
    logFile,
    get pid() {
      return child?.pid ?? -1;
    },
    restart: async () => {
      await stop();
      await launch();
    },
    stop,
  };
}

function prepareDatabases(bins: ClusterBinaries, opts: ClusterOptions, log: (line: string) => void): ClusterDatabase {
  const db = databaseFromEnv(process.env, opts.database);
  const t = Date.now();
  ensureDatabases(db, { reset: opts.reset });
  applySchemas(bins.sqlTool, bins.schemaDir, db);
  const where = `${db.host}:${db.port}`;
  log(`temporal-server: databases ${db.database}, ${visibilityDatabase(db)} ready on ${where} (${seconds(t)})`);
  return db;
}

/** All services in one process, reading <dataDir>/config/reelflow.yaml; output appended to the log. */
function spawnServer(server: string, dataDir: string, logFile: string, password?: string): ChildProcess {
  const out = openSync(logFile, 'a');
  try {
    return spawn(server, ['--root', dataDir, '--config', 'config', '--env', CONFIG_ENV, '--allow-no-auth', 'start'], {
      cwd: dataDir,
      env: { ...process.env, [PASSWORD_ENV]: password ?? '' },
      stdio: ['ignore', out, out],
    });
  } finally {
    closeSync(out); // the child holds its own copy
  }
}

/** As waitUntilServing, with the end of the server's log when it fails. */
async function waitForServer(address: string, child: ChildProcess, logFile: string, timeoutMs: number) {
  try {
    return await waitUntilServing('temporal-server', address, child, timeoutMs);
  } catch (err) {
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n').slice(-4).map(summary) : [];
    throw new Error(
      `${err instanceof Error ? err.message : String(err)}\nlast lines of ${logFile}:\n${tail.join('\n')}`,
    );
  }
}

/** A JSON log line as `level: msg: error`, without its stack trace. */
function summary(line: string): string {
  try {
    const e = JSON.parse(line) as { level?: string; msg?: string; error?: string };
    return [e.level, e.msg, e.error].filter(Boolean).join(': ');
  } catch {
    return line.slice(0, 500);
  }
}

/** The shard count is fixed in the database at first start; the server ignores a new one. */
async function checkShards(connection: Connection, shards: number): Promise<void> {
  const info = await connection.workflowService.getClusterInfo({});
  if (info.historyShardCount !== shards) {
    throw new Error(
      `the databases were set up with ${info.historyShardCount} history shards, not ${shards}: ` +
        'reset them (npm run cluster -- --reset drops them) or ask for that count',
    );
  }
}
