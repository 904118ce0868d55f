/**
 * `npm run cluster`: a real Temporal server on the local PostgreSQL (see cluster.ts),
 * config and log under .data/cluster/, in the foreground until Ctrl-C like the dev stack.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../temporal-cli';
import { DEFAULT_SHARDS, startCluster, type RunningCluster } from './cluster';

function intOption(name: string, value: string | undefined, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be an integer ${min}..${max}, got ${value}`);
  return n;
}

function describe(c: RunningCluster): string {
  return [
    `temporal  ${c.address}   namespace ${c.namespace}   ${c.shards} history shards   (no Web UI)`,
    `postgres  ${c.databases.join(', ')}`,
    `metrics   ${c.metricsUrl}`,
    `config    ${c.configFile}`,
    `log       ${c.logFile}`,
    '',
    'worker environment:',
    `  TEMPORAL_ADDRESS=${c.address} TEMPORAL_NAMESPACE=${c.namespace} npm run worker   # plus the vendor settings`,
    'tests against it:',
    `  REELFLOW_TEST_TEMPORAL_ADDRESS=${c.address} REELFLOW_TEST_TEMPORAL_NAMESPACE=${c.namespace} npm test -- <paths>`,
    '',
    'Ctrl-C stops the server (the databases stay).',
  ].join('\n');
}

async function main(): Promise<void> {
  const env = process.env;
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: env.REELFLOW_CLUSTER_PORT ?? '7233' },
      shards: { type: 'string', default: env.REELFLOW_CLUSTER_SHARDS ?? String(DEFAULT_SHARDS) },
      namespace: { type: 'string', default: env.REELFLOW_CLUSTER_NAMESPACE ?? 'default' },
      database: { type: 'string', default: env.REELFLOW_CLUSTER_DB ?? 'reelflow_temporal' },
      reset: { type: 'boolean', default: false },
    },
  });
  const cluster = await startCluster({
    dataDir: path.join(repoRoot(), '.data', 'cluster'),
    database: values.database,
    port: intOption('port', values.port, 0, 65535),
    shards: intOption('shards', values.shards, 1, 16384),
    namespace: values.namespace,
    reset: values.reset,
    log: (line) => console.error(line),
  });
  console.log(describe(cluster));
  const stop = async () => {
    await cluster.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((err) => {
  console.error(`cluster: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
