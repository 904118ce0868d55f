/**
 * `npm run chaos -- [--pipelines N] [--seed S] [--kills K] [--restart-server on|off]
 *                   [--workers W] [--temporal dev|cluster] [--timeout SECONDS] [--out DIR] [--ambiguous-policy ask|resubmit]`
 *
 * N pipelines (default 200) under the emulator's faults while worker processes are
 * SIGKILLed and the dev server restarts once; then the invariants. Writes
 * reports/chaos-<ISO>.json and .md; exits 1 when an invariant breaks, 2 on bad usage,
 * 3 when the run itself could not be carried out.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../devstack/temporal-cli';
import { renderMarkdown, writeReport } from './chaos-report';
import { runChaos } from './chaos-run';

const USAGE = `usage: npm run chaos -- [--pipelines 200] [--seed 1] [--kills 5] [--restart-server on|off]
                        [--workers 2] [--temporal dev|cluster] [--timeout SECONDS] [--out reports] [--ambiguous-policy ask|resubmit]`;

function positiveInt(name: string, value: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got ${value}`);
  return n;
}

class UsageError extends Error {}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        pipelines: { type: 'string', default: '200' },
        seed: { type: 'string', default: '1' },
        kills: { type: 'string', default: '5' },
        'restart-server': { type: 'string', default: 'on' },
        workers: { type: 'string', default: '2' },
        temporal: { type: 'string', default: 'dev' },
        timeout: { type: 'string' },
        out: { type: 'string', default: path.join(repoRoot(), 'reports') },
        'ambiguous-policy': { type: 'string', default: 'ask' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const restart = values['restart-server'];
  if (restart !== 'on' && restart !== 'off') throw new UsageError('--restart-server must be on or off');
  const kind = values.temporal;
  if (kind !== 'dev' && kind !== 'cluster') throw new UsageError(`--temporal must be dev or cluster, got ${kind}`);
  const policy = values['ambiguous-policy'];
  if (policy !== 'ask' && policy !== 'resubmit') throw new UsageError('--ambiguous-policy must be ask or resubmit');
  const report = await runChaos({
    ambiguousPolicy: policy,
    pipelines: positiveInt('pipelines', values.pipelines),
    seed: positiveInt('seed', values.seed, 0),
    kills: positiveInt('kills', values.kills, 0),
    restartServer: restart === 'on',
    workers: positiveInt('workers', values.workers),
    temporalKind: kind,
    ...(values.timeout ? { timeoutMs: positiveInt('timeout', values.timeout) * 1000 } : {}),
  });
  const files = writeReport(report, values.out);
  console.log('');
  console.log(renderMarkdown(report));
  console.log(`report: ${files.md}\n        ${files.json}`);
  const broken = report.invariants.filter((i) => !i.pass);
  console.log(
    broken.length
      ? `chaos: FAIL — ${broken.map((i) => `${i.id} (${i.violations})`).join(', ')}`
      : 'chaos: PASS — every invariant held',
  );
  return broken.length ? 1 : 0;
}

// Children are SIGKILLed by the run's exit hook; a signal here ends the process.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`chaos: ${err.message}\n${USAGE}`);
      process.exit(2);
    }
    console.error(
      `chaos: the run could not be carried out: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    process.exit(3);
  },
);
