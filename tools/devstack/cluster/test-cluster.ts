/**
 * `npm run test:cluster [jest args…]`: the end-to-end suites (*e2e.test.ts), the quick
 * chaos run and the server's own tests (*.cluster.test.ts) against a real Temporal server on PostgreSQL that it starts on fresh
 * databases (reelflow_test_temporal*, dropped and recreated) and stops at the end.
 * Jest patterns among the arguments replace the default suites. Shards:
 * REELFLOW_CLUSTER_SHARDS (default 4).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../temporal-cli';
import { DEFAULT_SHARDS, startCluster } from './cluster';

// *.cluster.test.ts: the server module's own tests, which `npm test` leaves out (jest.config.js).
const SUITES = ['e2e\\.test\\.ts$', 'test/chaos/quick\\.test\\.ts$', '\\.cluster\\.test\\.ts$'];

function runJest(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const patterns = args.some((a) => !a.startsWith('-')) ? [] : SUITES;
  const jest = path.join(repoRoot(), 'node_modules', 'jest', 'bin', 'jest.js');
  // Last: jest's array options swallow the positional patterns that follow them.
  const include = ['--testPathIgnorePatterns', '/node_modules/'];
  const child = spawn(process.execPath, [jest, ...patterns, ...args, ...include], {
    cwd: repoRoot(),
    env,
    stdio: 'inherit',
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const shards = Number(process.env.REELFLOW_CLUSTER_SHARDS ?? DEFAULT_SHARDS);
  const cluster = await startCluster({
    dataDir: path.join(repoRoot(), '.data', 'cluster-test'),
    database: process.env.REELFLOW_TEST_CLUSTER_DB ?? 'reelflow_test_temporal',
    shards,
    reset: true,
    retentionDays: 1,
    log: (line) => console.error(line),
  });
  const t1 = Date.now();
  console.error(`test:cluster: ${cluster.address}, ${cluster.shards} shards, log ${cluster.logFile}`);
  // Ctrl-C reaches jest too (same process group); wait for it, then stop the server.
  process.on('SIGINT', () => undefined);
  let code = 1;
  try {
    code = await runJest(process.argv.slice(2), {
      ...process.env,
      REELFLOW_TEST_TEMPORAL_ADDRESS: cluster.address,
      REELFLOW_TEST_TEMPORAL_NAMESPACE: cluster.namespace,
    });
  } finally {
    await cluster.stop();
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  console.error(
    `test:cluster: jest exit ${code}; cluster setup ${s(t1 - t0)}, tests ${s(Date.now() - t1)}, total ${s(Date.now() - t0)}`,
  );
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`test:cluster: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
