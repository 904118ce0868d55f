/**
 * One run of N pipelines through one system (reelflow or the baseline) in one callback
 * mode: the pieces every run shares — a fresh emulator process with the fixed timings,
 * the asset group, the definitions — and the summary built from what was measured.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_ACCESS_TOKENS, DEFAULT_API_KEYS } from '../../src/emulator/options';
import { createVendorClient } from '../../src/vendor-api';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import type { StageTiming } from './baseline';
import { readMachineCpu, spawnNode, type NodeProcess, type ProcStats } from './processes';
import { natural429s, sum, type BusiestWindow } from './rate-window';
import { summarize, type Summary } from './stats';
import { attributeTasks, fetchState, RequestCollector } from './vendor-usage';
import { emulatorTimings, pipelineDefinition, type BenchStage, type Workload } from './workload';
import { fillGroup } from './fill-group';
import type { LedgerMessages } from './history-counts';

/** The bench's emulator runs with its default credentials. */
export const EMULATOR_API_KEY = DEFAULT_API_KEYS[0];
export const EMULATOR_ACCESS_TOKEN = DEFAULT_ACCESS_TOKENS[0];

export interface PhaseContext {
  /** Root of the repository (dist/ lives there). */
  root: string;
  /** This run's folder for logs, definitions and archives. */
  runDir: string;
  tag: string;
  n: number;
  workload: Workload;
  callbacks: boolean;
  timeoutMs: number;
  log: (line: string) => void;
  /** When set, the measured node processes write V8 CPU profiles here (--cpu-prof). */
  cpuProfileDir?: string;
}

/** Node options for a measured process: CPU profiling when asked for. */
export function profilingArgs(ctx: PhaseContext, name: string): string[] {
  // One folder per process: every thread (workflow threads too) writes its own profile there.
  return ctx.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', path.join(ctx.cpuProfileDir, name)] : [];
}

/** CPU seconds of all the given uses. */
export function cpuOf(uses: ProcessUse[]): number {
  return uses.reduce((a, u) => a + (Number.isFinite(u.cpuSeconds) ? u.cpuSeconds : 0), 0);
}

export interface ProcessUse {
  name: string;
  /** Peak RSS (VmHWM) over the process's life, MB. */
  peakRssMb: number;
  /** CPU seconds used during the run (from the first pipeline's start to the last one's end). */
  cpuSeconds: number;
}

export function processUse(name: string, before: ProcStats | undefined, after: ProcStats | undefined): ProcessUse {
  return {
    name,
    peakRssMb: after ? after.hwmKb / 1024 : NaN,
    cpuSeconds: after && before ? after.cpuSeconds - before.cpuSeconds : NaN,
  };
}

/** The machine's CPU during a run, to tell our load from everybody else's. */
export interface MachineLoad {
  /** CPU seconds available (cores × wall seconds). */
  capacitySeconds: number;
  /** CPU seconds the machine was busy. */
  busySeconds: number;
  /** Of those: this bench's own process (client, inspection polling). */
  benchSeconds: number;
  /** Of those: neither the measured processes, their context, nor the bench (other users of the machine). */
  othersSeconds: number;
}

/** Starts a window over the machine's CPU time; end() takes the CPU seconds of the processes we measured. */
export function machineWindow(): { end(measuredSeconds: number): MachineLoad | undefined } {
  const m0 = readMachineCpu();
  const b0 = process.cpuUsage();
  return {
    end(measuredSeconds) {
      const m1 = readMachineCpu();
      if (!m0 || !m1) return undefined;
      const b = process.cpuUsage(b0);
      const benchSeconds = (b.user + b.system) / 1e6;
      const busySeconds = m1.busySeconds - m0.busySeconds;
      return {
        capacitySeconds: m1.totalSeconds - m0.totalSeconds,
        busySeconds,
        benchSeconds,
        othersSeconds: Math.max(0, busySeconds - benchSeconds - measuredSeconds),
      };
    },
  };
}

export interface Emulator {
  url: string;
  proc: NodeProcess;
  collector: RequestCollector;
}

/** A fresh emulator process with the workload's fixed timings; its request log drained from now on. */
export async function startEmulatorProcess(ctx: PhaseContext, name: string): Promise<Emulator> {
  const timingsFile = path.join(ctx.runDir, 'emulator-timings.json');
  writeFileSync(timingsFile, JSON.stringify(emulatorTimings(ctx.workload), null, 2));
  const proc = spawnNode({
    name: `emulator (${name})`,
    script: path.join(ctx.root, 'dist', 'emulator', 'main.js'),
    args: ['--port', '0', '--host', '127.0.0.1', '--timings', timingsFile],
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    logFile: path.join(ctx.runDir, `emulator-${name}.log`),
  });
  const line = await proc.waitForLine(/listening on http:\/\/\S+/, 30_000);
  const url = /listening on (http:\/\/\S+)/.exec(line)![1];
  const collector = new RequestCollector(url);
  collector.start();
  return { url, proc, collector };
}

/** Creates the asset group the pipelines register their assets in (setup, not measured). */
export async function createBenchGroup(emulatorUrl: string): Promise<string> {
  const vendor = createVendorClient({
    baseUrl: emulatorUrl,
    identityUrl: emulatorUrl,
    accessToken: EMULATOR_ACCESS_TOKEN,
  });
  try {
    const g = await vendor.assets.createAssetGroup({ Name: 'bench', Description: 'reelflow benchmark' });
    return g.Id;
  } finally {
    await vendor.close();
  }
}

export async function definitionsFor(ctx: PhaseContext, emulatorUrl: string): Promise<PipelineDefinitionInput[]> {
  const groupId = ctx.workload.stages.includes('assets') ? await createBenchGroup(emulatorUrl) : undefined;
  if (groupId && ctx.workload.fillGroup)
    await fillGroup(emulatorUrl, EMULATOR_ACCESS_TOKEN, groupId, ctx.workload.fillGroup);
  return Array.from({ length: ctx.n }, (_, index) =>
    pipelineDefinition(ctx.workload, {
      tag: ctx.tag,
      index,
      callbacks: ctx.callbacks,
      ...(groupId ? { groupId } : {}),
    }),
  );
}

export interface PhaseResult {
  system: 'reelflow' | 'baseline';
  callbacks: boolean;
  pipelines: number;
  completed: number;
  failed: number;
  /** The first few failure messages. */
  failures: string[];
  wallMs: number;
  pipelinesPerSecond: number;
  /** Per pipeline: its own start to its end. */
  pipelineMs: Summary;
  /** Per pipeline: the vendor's processing of its tasks along the chain (from the emulator's records). */
  vendorMs: Summary;
  /** Per pipeline: pipelineMs − vendorMs. */
  overheadMs: Summary;
  /** Time spent in each stage (the system's own clock: workflow time for reelflow), completed pipelines. */
  stageMs: Partial<Record<StageTiming, Summary>>;
  /** The vendor's processing in each stage (emulator records), completed pipelines. */
  vendorStageMs: Partial<Record<BenchStage, Summary>>;
  /** Vendor calls per pipeline by emulator endpoint key (mean over the pipelines). */
  callsPerPipeline: Record<string, number>;
  callsTotal: number;
  /** Requests the emulator's log dropped before the bench read them (0 = exact counts). */
  callsUnread: number;
  /** 429 answers by endpoint (emulator counters). */
  rateLimited: Record<string, number>;
  rateLimitedTotal: number;
  /** Of those, the ones no fault injected: the vendor's own limits (the bench injects none). */
  natural429: Record<string, number>;
  natural429Total: number;
  /** Most GetAsset calls the emulator received in any 1-s window (sliding), for the busiest access token. */
  getAssetBusiestWindow: BusiestWindow & { caller?: string };
  /** Vendor tasks created beyond one per step (duplicates); 0 expected. */
  extraVendorTasks: number;
  /** reelflow only: history events per pipeline, summed over its continue-as-new runs. */
  historyEvents?: Summary;
  /** reelflow only: WorkflowTaskCompleted events per pipeline, summed over its continue-as-new runs. */
  workflowTasks?: Summary;
  /** reelflow only: workflow tasks timed out before a worker took them, mean per pipeline (history-counts.ts). */
  taskTimeoutsPerPipeline?: number;
  /** reelflow only: per pipeline, its workflow tasks' time queued for a workflow thread, and running (history-counts.ts). */
  taskQueuedMs?: Summary;
  taskRunningMs?: Summary;
  /** reelflow only: per pipeline, its start to its first activity scheduled (history-counts.ts). */
  firstActivityMs?: Summary;
  /** reelflow with a budget only: per pipeline, its ledger answer to the workflow task that read it (history-counts.ts). */
  answerWaitMs?: Summary;
  /** reelflow with tenants only: messages to and from tenant ledgers, mean per pipeline (history-counts.ts). */
  ledgerMessages?: LedgerMessages;
  /** The system's own processes (worker(s), or the baseline process). */
  processes: ProcessUse[];
  /** Processes around it (emulator; for reelflow the Temporal server). */
  context: ProcessUse[];
  /** The machine's CPU during the run (others may share it). */
  machineLoad?: MachineLoad;
  /** Emulator callback counters. */
  vendorCallbacks: { sent: number; delivered: number; deliveredWithin1s: number; failed: number };
  perPipeline: {
    index: number;
    ok: boolean;
    pipelineMs: number;
    vendorMs: number;
    overheadMs: number;
    /** reelflow only: the first run's start and the latest run's close (server clock, epoch ms). */
    startMs?: number;
    closeMs?: number;
    historyEvents?: number;
    workflowTasks?: number;
    taskQueuedMs?: number;
    taskRunningMs?: number;
    firstActivityMs?: number;
    ledger?: LedgerMessages;
  }[];
}

/** CPU seconds per pipeline: the run's own processes (workers, or the baseline) plus the Temporal server. */
export function cpuPerPipeline(p: Pick<PhaseResult, 'processes' | 'context' | 'pipelines'>): number {
  const server = p.context.find((x) => x.name === 'temporal server')?.cpuSeconds ?? 0;
  return (p.processes.reduce((a, x) => a + x.cpuSeconds, 0) + server) / p.pipelines;
}

export interface Measured {
  system: PhaseResult['system'];
  wallMs: number;
  /** By pipeline index. */
  outcomes: {
    ok: boolean;
    error?: string;
    pipelineMs: number;
    startMs?: number;
    closeMs?: number;
    historyEvents?: number;
    workflowTasks?: number;
    taskTimeouts?: number;
    taskQueuedMs?: number;
    taskRunningMs?: number;
    firstActivityMs?: number;
    answerWaitMs?: number;
    ledger?: LedgerMessages;
    stageMs?: Partial<Record<StageTiming, number>>;
  }[];
  processes: ProcessUse[];
  context: ProcessUse[];
  machineLoad?: MachineLoad;
}

/** Each pipeline's times beside the vendor's share of them. */
function perPipelineOf(m: Measured, work: ReturnType<typeof attributeTasks>): PhaseResult['perPipeline'] {
  return m.outcomes.map((o, index) => {
    const vendorMs = work[index].totalMs;
    return {
      index,
      ok: o.ok,
      pipelineMs: o.pipelineMs,
      vendorMs,
      overheadMs: o.pipelineMs - vendorMs,
      ...(o.startMs !== undefined ? { startMs: o.startMs } : {}),
      ...(o.closeMs !== undefined ? { closeMs: o.closeMs } : {}),
      ...(o.historyEvents !== undefined ? { historyEvents: o.historyEvents } : {}),
      ...(o.workflowTasks !== undefined ? { workflowTasks: o.workflowTasks } : {}),
      ...(o.taskQueuedMs !== undefined ? { taskQueuedMs: o.taskQueuedMs } : {}),
      ...(o.taskRunningMs !== undefined ? { taskRunningMs: o.taskRunningMs } : {}),
      ...(o.firstActivityMs !== undefined ? { firstActivityMs: o.firstActivityMs } : {}),
      ...(o.ledger ? { ledger: o.ledger } : {}),
    };
  });
}

/** Ledger messages per pipeline, the mean over the pipelines whose histories were read; undefined when none had any. */
export function meanLedgerMessages(outcomes: Measured['outcomes']): LedgerMessages | undefined {
  const read = outcomes.filter((o) => o.historyEvents !== undefined);
  if (!read.length || !read.some((o) => o.ledger)) return undefined;
  const total = (k: keyof LedgerMessages) => read.reduce((a, o) => a + (o.ledger?.[k] ?? 0), 0) / read.length;
  return { asks: total('asks'), answers: total('answers'), settles: total('settles') };
}

/** The pipelines' history figures (history-counts.ts), each summarized over the pipelines that have it. */
function historySummaries(outcomes: Measured['outcomes']) {
  const of = (k: keyof Measured['outcomes'][number]) =>
    outcomes.map((o) => o[k]).filter((v): v is number => typeof v === 'number');
  const [history, tasks, timeouts] = [of('historyEvents'), of('workflowTasks'), of('taskTimeouts')];
  const [queued, running, firstActivity, answerWait] = [
    of('taskQueuedMs'),
    of('taskRunningMs'),
    of('firstActivityMs'),
    of('answerWaitMs'),
  ];
  return {
    ...(history.length ? { historyEvents: summarize(history) } : {}),
    ...(tasks.length ? { workflowTasks: summarize(tasks) } : {}),
    ...(timeouts.length ? { taskTimeoutsPerPipeline: timeouts.reduce((a, b) => a + b, 0) / timeouts.length } : {}),
    ...(queued.length ? { taskQueuedMs: summarize(queued), taskRunningMs: summarize(running) } : {}),
    ...(firstActivity.length ? { firstActivityMs: summarize(firstActivity) } : {}),
    ...(answerWait.length ? { answerWaitMs: summarize(answerWait) } : {}),
  };
}

/** Stops the emulator's drain, reads its state and builds the run's summary. */
export async function finishPhase(ctx: PhaseContext, emulator: Emulator, m: Measured): Promise<PhaseResult> {
  await emulator.collector.stop();
  const state = await fetchState(emulator.url);
  const work = attributeTasks(state, ctx.n);
  const perPipeline = perPipelineOf(m, work);
  const ok = perPipeline.filter((p) => p.ok);
  const stageMs: PhaseResult['stageMs'] = {};
  const vendorStageMs: PhaseResult['vendorStageMs'] = {};
  for (const stage of [...ctx.workload.stages, ...(ctx.workload.archive ? ['archive' as const] : [])]) {
    stageMs[stage] = summarize(ok.map((p) => m.outcomes[p.index].stageMs?.[stage] ?? NaN).filter(Number.isFinite));
  }
  for (const stage of ctx.workload.stages) {
    vendorStageMs[stage] = summarize(ok.map((p) => work[p.index].processingMs[stage] ?? NaN).filter(Number.isFinite));
  }
  const totals = emulator.collector.totals();
  const callsPerPipeline = Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, v / ctx.n]));
  const rateLimited = state.counters.rateLimited429;
  const expectedTasks: Record<BenchStage, number> = {
    review: ctx.workload.stages.includes('review') ? 1 : 0,
    assets: ctx.workload.stages.includes('assets') ? ctx.workload.assetsPerPipeline : 0,
    generation: ctx.workload.stages.includes('generation') ? 1 : 0,
    erase: ctx.workload.stages.includes('erase') ? 1 : 0,
  };
  const extraVendorTasks = work.reduce(
    (sum, w) =>
      sum +
      (Object.keys(expectedTasks) as BenchStage[]).reduce((s, k) => s + Math.max(0, w.tasks[k] - expectedTasks[k]), 0),
    0,
  );
  const natural429 = natural429s(state.counters);
  const ledgerMessages = meanLedgerMessages(m.outcomes);
  const completed = ok.length;
  return {
    system: m.system,
    callbacks: ctx.callbacks,
    pipelines: ctx.n,
    completed,
    failed: ctx.n - completed,
    failures: [...new Set(m.outcomes.filter((o) => !o.ok).map((o) => o.error ?? 'unknown'))].slice(0, 5),
    wallMs: m.wallMs,
    pipelinesPerSecond: completed / (m.wallMs / 1000),
    pipelineMs: summarize(ok.map((p) => p.pipelineMs)),
    vendorMs: summarize(ok.map((p) => p.vendorMs)),
    overheadMs: summarize(ok.map((p) => p.overheadMs)),
    stageMs,
    vendorStageMs,
    callsPerPipeline,
    callsTotal: Object.values(totals).reduce((a, b) => a + b, 0),
    callsUnread: emulator.collector.lost,
    rateLimited,
    rateLimitedTotal: Object.values(rateLimited).reduce((a, b) => a + b, 0),
    natural429,
    natural429Total: sum(natural429),
    getAssetBusiestWindow: emulator.collector.getAsset.worst(),
    extraVendorTasks,
    ...historySummaries(m.outcomes),
    ...(ledgerMessages ? { ledgerMessages } : {}),
    processes: m.processes,
    context: m.context,
    ...(m.machineLoad ? { machineLoad: m.machineLoad } : {}),
    vendorCallbacks: {
      sent: state.counters.callbacks.sent,
      delivered: state.counters.callbacks.delivered,
      deliveredWithin1s: state.counters.callbacks.deliveredWithin1s,
      failed: state.counters.callbacks.failed,
    },
    perPipeline,
  };
}
