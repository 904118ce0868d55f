/**
 * `npm run bench -- [--pipelines N] [--callbacks on|off|both] [--stages …] …` (see flags.ts).
 * `--scenario tenants`: the noisy neighbour instead (tenants-run.ts), with its own report.
 * `--scenario budgets`: the workload without tenants, counted and with a budget (budgets-run.ts), with its own report.
 *
 * N pipelines started at once through reelflow (worker processes on a Temporal dev
 * server), then the same N through the naive baseline, against an emulator process with
 * fixed stage times; per callback mode. Writes reports/bench-<ISO>.{json,md}.
 * Everything it starts, it stops; every wait is bounded.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliVersion, findTemporalCli, repoRoot } from '../devstack/temporal-cli';
import { DEFAULT_GETASSET_RATE_PER_SECOND } from '../../src/workers/config';
import { runBaseline } from './baseline-run';
import { parseBenchFlags, UsageError, USAGE, type BenchFlags } from './flags';
import type { PhaseContext, PhaseResult } from './phase';
import { summarizeProfiles } from './cpu-profile';
import { killAllSpawned, pidsNamed, Sampler } from './processes';
import { runReelflow } from './reelflow-run';
import {
  ratiosFor,
  thresholdFindings,
  writeReport,
  type BenchReport,
  type Machine,
  type ScenarioSettings,
} from './report';
import { targetsFor } from './targets';
import { budgetFor, BENCH_PRICES } from './budgets-plan';
import { budgetsFindings, budgetsRows, writeBudgetsReport, type BudgetsReport } from './budgets-report';
import { runBudgetsScenario } from './budgets-run';
import { tenantsFileContent } from './tenants-plan';
import { checksAndFindings, writeTenantsReport, type TenantsReport } from './tenants-report';
import { matcherSettings, runTenantsScenario, type TenantsRunContext } from './tenants-run';
import { startBenchServer, type BenchServer } from './temporal-server';
import { getAssetVendorFloorMs, idealMs, minimumCalls, stageProcessingMs, type Workload } from './workload';

function machine(cli: string | undefined): Machine {
  let temporalCli: string | undefined;
  try {
    temporalCli = cli ? cliVersion(cli).split('\n')[0] : undefined;
  } catch {
    temporalCli = undefined;
  }
  return {
    cores: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    ...(temporalCli ? { temporalCli } : {}),
    loadAverageAtStart: os.loadavg()[0] ?? 0,
  };
}

function idealCounts(w: Workload): string {
  const t = w.timings;
  const parts: string[] = [];
  if (w.stages.includes('review'))
    parts.push(`review pending ${t.reviewPendingMs} + processing ${t.reviewProcessingMs}`);
  if (w.stages.includes('assets'))
    parts.push(`asset processing ${t.assetProcessingMs} (items of a stage run in parallel: counted once)`);
  if (w.stages.includes('generation'))
    parts.push(`generation queued ${t.generationQueuedMs} + running ${t.generationRunningMs}`);
  if (w.stages.includes('erase')) {
    parts.push(
      `erase submitted ${t.eraseSubmittedMs} + queued ${t.eraseQueuedMs} + in progress ${t.eraseInProgressMs}`,
    );
  }
  return (
    `the emulator's own processing along one pipeline's chain (all pipelines run in parallel, so one chain is the longest): ` +
    `${parts.join(' + ')} ms. Not counted: HTTP round trips, polling and callback delays, the emulator's tick, archive downloads.`
  );
}

function getAssetFloor(flags: BenchFlags) {
  const rate = flags.getAssetRate ?? DEFAULT_GETASSET_RATE_PER_SECOND;
  const perPipeline = flags.workload.stages.includes('assets') ? flags.workload.assetsPerPipeline : 0;
  const ms = (flags.pipelines * perPipeline * 1000) / rate;
  return {
    ratePerSecond: rate,
    callsPerPipeline: perPipeline,
    ms,
    explanation: perPipeline
      ? `${flags.pipelines} pipelines × at least ${perPipeline} GetAsset ÷ ${rate}/s ≥ ${(ms / 1000).toFixed(1)} s of wall time for reelflow, whatever the stage times. ` +
        `The vendor allows 10/s per access token (the ideal counts that floor); the baseline does not coordinate its GetAsset calls and meets that limit as 429s.`
      : 'no assets stage in this workload.',
  };
}

/** The flags, or the exit code after a usage error (printed with the usage). */
function flagsOrExit(argv: string[]): BenchFlags | number {
  try {
    return parseBenchFlags(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`bench: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
}

/** One bench run: its tag, its folder under .data/bench/ and the command as typed. */
interface BenchRun {
  root: string;
  startedAt: string;
  tag: string;
  runDir: string;
  command: string;
  log: (line: string) => void;
}

function newRun(): BenchRun {
  const root = repoRoot();
  const startedAt = new Date().toISOString();
  const tag = `${startedAt.slice(0, 19).replace(/[-:T]/g, '')}${randomBytes(2).toString('hex')}`;
  const runDir = path.join(root, '.data', 'bench', tag);
  mkdirSync(runDir, { recursive: true });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  return { root, startedAt, tag, runDir, command, log };
}

/** On Ctrl-C (or SIGTERM): kill what was spawned, stop the server, exit 130. On exit: kill what is left. */
function stopOnSignals(log: (line: string) => void, stopAll: () => Promise<void>): void {
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    log('bench: interrupted; stopping what it started');
    // Child processes get the signal of the terminal's process group too; the server is stopped here.
    killAllSpawned();
    void stopAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', killAllSpawned);
}

async function startServer(flags: BenchFlags, run: BenchRun, sampler: Sampler): Promise<BenchServer> {
  const server = await startBenchServer({
    kind: flags.temporal,
    dir: run.runDir,
    inMemory: flags.temporalDb === 'memory',
    ...(flags.shards !== undefined ? { shards: flags.shards } : {}),
    database: 'reelflow_bench_temporal',
    log: run.log,
  });
  sampler.watch('temporal server', server.pid);
  // The real server's persistence: the local PostgreSQL's processes (shared with anything else using it).
  if (server.kind === 'cluster') sampler.watchGroup('postgresql', () => pidsNamed('postgres'));
  sampler.start();
  run.log(`bench: ${server.described} at ${server.address}`);
  return server;
}

/** Per callback mode: reelflow, then (unless --baseline off) the baseline. */
async function runModes(flags: BenchFlags, run: BenchRun, server: BenchServer, sampler: Sampler) {
  const { log } = run;
  const runs: PhaseResult[] = [];
  for (const mode of flags.modes) {
    const ctx: PhaseContext = {
      root: run.root,
      runDir: run.runDir,
      tag: run.tag,
      n: flags.pipelines,
      workload: flags.workload,
      callbacks: mode === 'on',
      timeoutMs: flags.timeoutMs,
      log,
      ...(flags.cpuProfile ? { cpuProfileDir: path.join(run.runDir, 'profiles') } : {}),
    };
    const r = await runReelflow({
      ctx,
      temporal: { address: server.address, pid: server.pid },
      workers: flags.workers,
      ...(flags.getAssetRate !== undefined ? { getAssetRate: flags.getAssetRate } : {}),
      workerEnv: flags.workerEnv,
      sampler,
    });
    runs.push(r);
    log(`  reelflow: ${r.completed}/${r.pipelines} in ${(r.wallMs / 1000).toFixed(1)} s`);
    if (flags.baseline) {
      const b = await runBaseline(ctx, sampler);
      runs.push(b);
      log(`  baseline: ${b.completed}/${b.pipelines} in ${(b.wallMs / 1000).toFixed(1)} s`);
    }
  }
  return runs;
}

function benchReport(
  flags: BenchFlags,
  run: BenchRun,
  cli: string | undefined,
  temporalServer: string,
  runs: PhaseResult[],
): BenchReport {
  const ideal = idealMs(flags.workload);
  const vendorFloor = getAssetVendorFloorMs(flags.pipelines, flags.workload);
  const ratios = ratiosFor(runs);
  return {
    startedAt: run.startedAt,
    command: run.command,
    machine: machine(cli),
    settings: {
      pipelines: flags.pipelines,
      callbacks: flags.modes,
      workload: flags.workload,
      workers: flags.workers,
      getAssetRatePerSecond: flags.getAssetRate ?? DEFAULT_GETASSET_RATE_PER_SECOND,
      workerEnv: flags.workerEnv,
      temporalDb: flags.temporalDb,
      temporalServer,
      timeoutSeconds: flags.timeoutMs / 1000,
    },
    ideal: {
      ms: ideal,
      wallMs: ideal + vendorFloor,
      byStage: stageProcessingMs(flags.workload),
      counts: idealCounts(flags.workload),
      getAssetVendorFloorMs: vendorFloor,
    },
    minimumCalls: minimumCalls(flags.workload),
    getAssetFloor: getAssetFloor(flags),
    runs,
    ratios,
    targets: targetsFor(flags.pipelines),
    findings: thresholdFindings(runs, ratios, flags.pipelines),
    ...(flags.cpuProfile ? { cpuProfiles: summarizeProfiles(path.join(run.runDir, 'profiles')) } : {}),
  };
}

function scenarioContext(run: BenchRun, server: BenchServer, sampler: Sampler): TenantsRunContext {
  return {
    root: run.root,
    runDir: run.runDir,
    tag: run.tag,
    log: run.log,
    temporal: { address: server.address, pid: server.pid },
    sampler,
  };
}

function scenarioSettings(flags: BenchFlags, server: BenchServer): ScenarioSettings {
  return {
    callbacks: flags.modes[0],
    workload: flags.workload,
    workers: flags.workers,
    getAssetRatePerSecond: flags.getAssetRate ?? DEFAULT_GETASSET_RATE_PER_SECOND,
    workerEnv: flags.workerEnv,
    temporalServer: server.described,
    timeoutSeconds: flags.timeoutMs / 1000,
  };
}

function logWritten(run: BenchRun, written: { md: string; json: string }): void {
  run.log(
    `bench: report ${path.relative(process.cwd(), written.md)} and ${path.relative(process.cwd(), written.json)}`,
  );
}

/** --scenario tenants: the runs, then their report; the exit code. */
async function tenantsMain(flags: BenchFlags, run: BenchRun, server: BenchServer, sampler: Sampler, cli?: string) {
  const scenario = flags.tenants!;
  const runs = await runTenantsScenario(flags, scenario, scenarioContext(run, server, sampler));
  const matcher = matcherSettings(server.kind, run.root);
  const report: TenantsReport = {
    startedAt: run.startedAt,
    command: run.command,
    machine: machine(cli),
    settings: { ...scenarioSettings(flags, server), scenario, matcher, tenantsFile: tenantsFileContent() },
    runs,
    ...checksAndFindings(runs, matcher),
  };
  const written = writeTenantsReport(report, path.resolve(flags.outDir));
  logWritten(run, written);
  return runs.some((r) => r.result.failed > 0) ? 1 : 0;
}

/** --scenario budgets: the runs, then their report; the exit code. */
async function budgetsMain(flags: BenchFlags, run: BenchRun, server: BenchServer, sampler: Sampler, cli?: string) {
  const scenario = flags.budgets!;
  const runs = await runBudgetsScenario(flags, scenario, scenarioContext(run, server, sampler));
  const rows = budgetsRows(runs);
  const report: BudgetsReport = {
    startedAt: run.startedAt,
    command: run.command,
    machine: machine(cli),
    settings: {
      ...scenarioSettings(flags, server),
      scenario,
      pipelines: flags.pipelines,
      prices: BENCH_PRICES,
      budget: budgetFor(flags.pipelines, flags.workload),
    },
    rows,
    findings: budgetsFindings(rows, runs),
    runs,
    ...(flags.cpuProfile ? { cpuProfiles: summarizeProfiles(path.join(run.runDir, 'profiles')) } : {}),
  };
  const written = writeBudgetsReport(report, path.resolve(flags.outDir));
  logWritten(run, written);
  return runs.some((r) => r.result.failed > 0) ? 1 : 0;
}

async function main(): Promise<number> {
  const flags = flagsOrExit(process.argv.slice(2));
  if (typeof flags === 'number') return flags;
  const run = newRun();
  const { log } = run;
  const cli = findTemporalCli((line) => log(line));
  if (!cli && flags.temporal === 'dev') {
    process.stderr.write(
      'bench: no Temporal CLI (set TEMPORAL_CLI, put `temporal` on PATH, or install Go to build it)\n',
    );
    return 1;
  }
  const sampler = new Sampler(500);
  let server: BenchServer | undefined;
  const stopAll = async () => {
    sampler.stop();
    await server?.stop();
    server = undefined;
  };
  stopOnSignals(log, stopAll);

  try {
    log(`bench: run ${run.tag}, logs in ${path.relative(process.cwd(), run.runDir)}`);
    server = await startServer(flags, run, sampler);
    if (flags.scenario !== 'default') {
      const scenarioMain = flags.scenario === 'tenants' ? tenantsMain : budgetsMain;
      const code = await scenarioMain(flags, run, server, sampler, cli?.path);
      await stopAll();
      if (!flags.keep) rmSync(run.runDir, { recursive: true, force: true });
      else log(`bench: kept ${path.relative(process.cwd(), run.runDir)}`);
      return code;
    }
    const temporalServer = server.described;
    const runs = await runModes(flags, run, server, sampler);
    await stopAll();

    const written = writeReport(benchReport(flags, run, cli?.path, temporalServer, runs), path.resolve(flags.outDir));
    logWritten(run, written);
    const failed = runs.some((r) => r.failed > 0);
    if (!flags.keep) rmSync(run.runDir, { recursive: true, force: true });
    else log(`bench: kept ${path.relative(process.cwd(), run.runDir)}`);
    return failed ? 1 : 0;
  } finally {
    await stopAll();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
