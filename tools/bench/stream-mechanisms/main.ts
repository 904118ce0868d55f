/**
 * `npx tsx tools/bench/stream-mechanisms/main.ts [--workflows N] [--subscribers N] [--changes N] [--gap-ms N]`:
 * how a change in a workflow reaches a gateway's subscribers, three ways side by side in one
 * run (docs/benchmarks.md, "Gateway event streams"): query polling (what `reelflow serve`
 * does), Temporal Workflow Streams, and a push from the worker through workflow sinks. A
 * bench of the mechanisms on a stand-in workflow (workflow.ts), not of the product.
 *
 * One dev server; per mechanism, in turn, a fresh worker process (worker.ts) on a fresh task
 * queue; this process is the gateway side (every subscriber, the sink endpoint). Each
 * mechanism: the history run, then the load run (runs.ts). The report goes to
 * reports/stream-mechanisms-<time>.{json,md}.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { killAllSpawned, spawnNode } from '../processes';
import { writeReportFiles } from '../report-files';
import { startBenchServer, type BenchServer } from '../temporal-server';
import { feedFor, MECHANISMS, SinkReceiver, type Mechanism } from './feeds';
import { markdownOf, type MechanismRun, type StreamBenchReport } from './report';
import { historyRun, loadRun, warmUp, type CallCounts, type RunContext } from './runs';
import { connectTemporal } from '../../../src/config/temporal-connection';

const ROOT = path.resolve(__dirname, '../../..');
const POLL_MS = 500; // REELFLOW_GATEWAY_POLL_MS's default (docs/api.md, "Events")

const USAGE = `usage: npx tsx tools/bench/stream-mechanisms/main.ts [options]
  --workflows N          load run: workflows started at once (default 100)
  --subscribers N        load run: subscribers on each (default 10)
  --history-workflows N  history run: workflows with 0, 1 and 10 subscribers each (default 10)
  --changes N            status changes per workflow (default 12)
  --gap-ms N             mean time between changes, a workflow timer drawn from 0.5..1.5 × N (default 1000)
  --mechanisms LIST      run in this order (default none,query,streams,streams-shared,sinks,query):
                         none (the same workflows, nobody watching: the worker's baseline),
                         query, streams, streams-shared (one subscription per workflow), sinks
  --out DIR              report folder (default reports/)
  --keep                 keep the run's folder (the workers' and the dev server's logs)
  --help`;

interface Options {
  workflows: number;
  subscribers: number;
  historyWorkflows: number;
  changes: number;
  gapMs: number;
  mechanisms: Mechanism[];
  out: string;
  keep: boolean;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      workflows: { type: 'string', default: '100' },
      subscribers: { type: 'string', default: '10' },
      'history-workflows': { type: 'string', default: '10' },
      changes: { type: 'string', default: '12' },
      'gap-ms': { type: 'string', default: '1000' },
      mechanisms: { type: 'string', default: 'none,query,streams,streams-shared,sinks,query' },
      out: { type: 'string', default: path.join(ROOT, 'reports') },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  const count = (name: keyof typeof values, min: number) => {
    const n = Number(values[name]);
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name}: a whole number ≥ ${min}\n${USAGE}`);
    return n;
  };
  const mechanisms = values.mechanisms.split(',').map((m) => m.trim()) as Mechanism[];
  const unknown = mechanisms.filter((m) => !MECHANISMS.includes(m));
  if (unknown.length) throw new Error(`--mechanisms: unknown ${unknown.join(', ')}\n${USAGE}`);
  return {
    workflows: count('workflows', 1),
    subscribers: count('subscribers', 0),
    historyWorkflows: count('history-workflows', 0),
    changes: count('changes', 1),
    gapMs: count('gap-ms', 0),
    mechanisms,
    out: values.out,
    keep: values.keep,
  };
}

const say = (line: string) => process.stderr.write(`stream bench: ${line}\n`);

/** Counts the queries and Updates this process sends (the worker answers each). */
function counting(calls: CallCounts): WorkflowClientInterceptor {
  return {
    query: (input, next) => (calls.queries++, next(input)),
    startUpdate: (input, next) => (calls.updates++, next(input)),
  };
}

interface Setup {
  dir: string;
  server: BenchServer;
  bundle: string;
  receiver: SinkReceiver;
  client: Client;
  calls: CallCounts;
}

async function setUp(): Promise<Setup> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-stream-bench-'));
  const server = await startBenchServer({ kind: 'dev', dir, inMemory: true, database: 'unused', log: say });
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'workflow.ts') });
  const bundle = path.join(dir, 'workflow-bundle.js');
  writeFileSync(bundle, code);
  const receiver = await SinkReceiver.start();
  const calls: CallCounts = { queries: 0, updates: 0 };
  const connection = await connectTemporal({ address: server.address });
  const client = new Client({ connection, interceptors: { workflow: [counting(calls)] } });
  return { dir, server, bundle, receiver, client, calls };
}

/** One mechanism: a fresh worker on a fresh task queue, its history run, its load run. */
async function runMechanism(setup: Setup, opts: Options, mechanism: Mechanism, index: number): Promise<MechanismRun> {
  const taskQueue = `stream-bench-${index}-${mechanism}`;
  const worker = spawnNode({
    name: `worker-${mechanism}`,
    script: path.join(__dirname, 'worker.ts'),
    args: [
      ...['--address', setup.server.address, '--task-queue', taskQueue],
      ...['--bundle', setup.bundle, '--sink-url', setup.receiver.url],
    ],
    env: { PATH: process.env.PATH, HOME: setup.dir },
    logFile: path.join(setup.dir, `${taskQueue}.log`),
    nodeArgs: ['--import', 'tsx'],
  });
  await worker.waitForLine(/^READY/, 60_000);
  setup.receiver.reset();
  const ctx: RunContext = {
    client: setup.client,
    calls: setup.calls,
    receiver: setup.receiver,
    feed: feedFor(mechanism, setup.client, setup.receiver, POLL_MS),
    mechanism,
    taskQueue,
    workerPid: worker.pid,
    serverPid: setup.server.pid,
    changes: opts.changes,
    gapMs: opts.gapMs,
    say,
  };
  await warmUp(ctx, 5);
  const history =
    mechanism === 'none' || opts.historyWorkflows === 0 ? undefined : await historyRun(ctx, opts.historyWorkflows);
  const load = await loadRun(ctx, opts.workflows, mechanism === 'none' ? 0 : opts.subscribers);
  say(`${mechanism}: load p50/p95 ${load.latencyMs.p50}/${load.latencyMs.p95} ms, ${load.seconds.toFixed(1)} s`);
  const workerExit = String(await worker.stop(15_000));
  return { mechanism, taskQueue, ...(history ? { history } : {}), load, workerExit };
}

const withoutOut = ({ out: _, keep: __, ...rest }: Options) => rest;

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  if (!opts) return void process.stdout.write(`${USAGE}\n`);
  const startedAt = new Date().toISOString();
  const machine = {
    cores: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    loadAverageAtStart: os.loadavg(),
  };
  const setup = await setUp();
  try {
    const runs: MechanismRun[] = [];
    for (const [i, mechanism] of opts.mechanisms.entries()) runs.push(await runMechanism(setup, opts, mechanism, i));
    const report: StreamBenchReport = {
      startedAt,
      commit: commit(),
      machine,
      server: setup.server.described,
      options: { ...withoutOut(opts), pollMs: POLL_MS },
      runs,
      seconds: (Date.now() - Date.parse(startedAt)) / 1000,
    };
    const markdown = markdownOf(report);
    const files = writeReportFiles('stream-mechanisms', startedAt, report, `${markdown}\n`, opts.out);
    process.stdout.write(`${markdown}\n\nreport: ${files.md}\n`);
  } finally {
    await setup.client.connection.close();
    await setup.receiver.close();
    await setup.server.stop();
    killAllSpawned();
    if (opts.keep) say(`kept ${setup.dir}`);
    else rmSync(setup.dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    say(err instanceof Error ? (err.stack ?? err.message) : String(err));
    killAllSpawned();
    process.exit(1);
  });
}
