/**
 * The Temporal server a bench or chaos run starts for itself: the dev server (one process,
 * SQLite, one history shard) or the real server on the local PostgreSQL with N shards
 * (`--temporal cluster`), on fresh databases so runs never see each other's workflows.
 */
import path from 'node:path';
import { startCluster } from '../devstack/cluster/cluster';
import { startDevServer, type DevServer } from '../devstack/dev-server';
import { findTemporalCli } from '../devstack/temporal-cli';

export type TemporalKind = 'dev' | 'cluster';

export interface BenchServerOptions {
  kind: TemporalKind;
  /** Holds the SQLite file or the cluster's config, and the server log. */
  dir: string;
  /** Dev server: keep SQLite in memory instead of a file. */
  inMemory?: boolean;
  /** Cluster: history shards (default the cluster's own). */
  shards?: number;
  /** Cluster: the persistence database, dropped and recreated. */
  database: string;
  log: (line: string) => void;
}

export interface BenchServer extends DevServer {
  kind: TemporalKind;
  /** History shards: 1 for the dev server. */
  shards: number;
  /** "dev server (SQLite file)" or "temporal-server 1.29.1 on PostgreSQL, 4 shards". */
  described: string;
}

export async function startBenchServer(opts: BenchServerOptions): Promise<BenchServer> {
  const { log } = opts;
  if (opts.kind === 'cluster') {
    const cluster = await startCluster({
      dataDir: path.join(opts.dir, 'cluster'),
      database: opts.database,
      ...(opts.shards !== undefined ? { shards: opts.shards } : {}),
      reset: true,
      retentionDays: 1,
      log,
    });
    return Object.assign(cluster, {
      kind: 'cluster' as const,
      described: `temporal-server on PostgreSQL, ${cluster.shards} history shards`,
    });
  }
  const cli = findTemporalCli(log);
  if (!cli) throw new Error('no Temporal CLI (set TEMPORAL_CLI, put `temporal` on PATH, or install Go to build it)');
  const server = await startDevServer({
    cli: cli.path,
    ...(opts.inMemory ? {} : { dbFile: path.join(opts.dir, 'temporal.db') }),
    headless: true,
    logFile: path.join(opts.dir, 'temporal.log'),
    log,
  });
  return Object.assign(server, {
    kind: 'dev' as const,
    shards: 1,
    described: `dev server (SQLite ${opts.inMemory ? 'in memory' : 'file'}, 1 history shard)`,
  });
}
