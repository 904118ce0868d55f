/**
 * The real Temporal server on PostgreSQL (tools/devstack/cluster), on databases of its own.
 * `npm run test:cluster` runs this file; `npm test` leaves it out (jest.config.js): it
 * needs the server's Go build and a PostgreSQL server.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startCluster, type ClusterOptions, type RunningCluster } from '../../tools/devstack/cluster/cluster';
import { databaseFromEnv, dropDatabases } from '../../tools/devstack/cluster/postgres';
import { REELFLOW_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { connectTemporal } from '../../src/config/temporal-connection';

const DATABASE = 'reelflow_test_cluster_check';
// A role of its own, with a password: the one `npm run cluster` uses is left alone.
const ROLE = 'reelflow_test_cluster_role';
const PASSWORD = `pw-${randomUUID()}`;
const saved = { user: process.env.REELFLOW_CLUSTER_DB_USER, password: process.env.REELFLOW_CLUSTER_DB_PASSWORD };
const lines: string[] = [];
let base: ClusterOptions;
let cluster: RunningCluster | undefined;

beforeAll(() => {
  process.env.REELFLOW_CLUSTER_DB_USER = ROLE;
  process.env.REELFLOW_CLUSTER_DB_PASSWORD = PASSWORD;
  base = {
    dataDir: mkdtempSync(path.join(os.tmpdir(), 'reelflow-cluster-')),
    database: DATABASE,
    namespace: 'cluster-check',
    retentionDays: 1,
    log: (line) => lines.push(line),
  };
});

afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

afterAll(() => {
  dropDatabases(databaseFromEnv(process.env, DATABASE));
  spawnSync('psql', ['-X', '-q', '-h', process.env.PGHOST ?? '127.0.0.1', '-U', process.env.PGUSER ?? 'postgres'], {
    input: `DROP ROLE IF EXISTS ${ROLE};`,
    env: { ...process.env, PGDATABASE: process.env.PGDATABASE ?? 'postgres' },
  });
  process.env.REELFLOW_CLUSTER_DB_USER = saved.user;
  process.env.REELFLOW_CLUSTER_DB_PASSWORD = saved.password;
  if (saved.user === undefined) delete process.env.REELFLOW_CLUSTER_DB_USER;
  if (saved.password === undefined) delete process.env.REELFLOW_CLUSTER_DB_PASSWORD;
});

async function withConnection<T>(address: string, fn: (c: Connection) => Promise<T>): Promise<T> {
  const connection = await connectTemporal({ address });
  try {
    return await fn(connection);
  } finally {
    await connection.close();
  }
}

test('fresh databases: the shards asked for, PostgreSQL for both stores, namespace and search attributes; the password in no file', async () => {
  cluster = await startCluster({ ...base, shards: 2, reset: true });
  const c = cluster;
  await withConnection(c.address, async (connection) => {
    const info = await connection.workflowService.getClusterInfo({});
    expect({ shards: info.historyShardCount, store: info.persistenceStore, visibility: info.visibilityStore }).toEqual({
      shards: 2,
      store: 'postgres12',
      visibility: 'postgres12',
    });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'cluster-check' });
    expect(Object.keys(customAttributes ?? {})).toEqual(
      expect.arrayContaining(Object.keys(REELFLOW_SEARCH_ATTRIBUTES)),
    );
  });
  expect(readFileSync(c.configFile, 'utf8')).not.toContain(PASSWORD);
  expect(readFileSync(c.logFile, 'utf8')).not.toContain(PASSWORD);
  expect(lines.join('\n')).not.toContain(PASSWORD);
});

test('a restart keeps what the databases hold', async () => {
  cluster = await startCluster({ ...base, shards: 2 });
  const c = cluster;
  const workflowId = `kept-${randomUUID()}`;
  // No worker: the execution just waits, recorded in PostgreSQL.
  await withConnection(c.address, (connection) =>
    new Client({ connection, namespace: c.namespace }).workflow.start('noWorkerForThis', {
      taskQueue: `none-${randomUUID()}`,
      workflowId,
    }),
  );
  await c.restart();
  const status = await withConnection(c.address, async (connection) => {
    const handle = new Client({ connection, namespace: c.namespace }).workflow.getHandle(workflowId);
    const { status } = await handle.describe();
    await handle.terminate('test over');
    return status.name;
  });
  expect(status).toBe('RUNNING');
});

test('a second start on the same databases sets nothing up again; another shard count is refused with the fix', async () => {
  lines.length = 0;
  cluster = await startCluster({ ...base, shards: 2 });
  expect(lines.filter((l) => /created namespace|registered search attributes/.test(l))).toEqual([]);
  await cluster.stop();
  cluster = undefined;
  await expect(startCluster({ ...base, shards: 4 })).rejects.toThrow(/set up with 2 history shards, not 4.*--reset/);
});
