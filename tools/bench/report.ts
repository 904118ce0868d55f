/**
 * The benchmark report: one JSON with everything measured (per pipeline too) and one
 * Markdown for people — one table per callback mode, the ratios, the machine, the
 * exact command — both written to <outDir>/bench-<ISO time>.{json,md}.
 */
import { ASSET_FIRST_READ_AFTER } from '../../src/definition/deadlines';
import { writeReportFiles } from './report-files';
import type { ProfileSummary } from './cpu-profile';
import { cpuPerPipeline, type PhaseResult } from './phase';
import { ratio, type Summary } from './stats';
import { runFindings, targetsFor, type Targets } from './targets';
import type { BenchStage, Workload } from './workload';

export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
  temporalCli?: string;
  /** 1-minute load average when the bench began (others may share the machine). */
  loadAverageAtStart: number;
}

/** The settings every scenario's report states (tenants, budgets): one callback mode, the workload, the workers. */
export interface ScenarioSettings {
  callbacks: 'off' | 'on';
  workload: Workload;
  workers: number;
  getAssetRatePerSecond: number;
  /** Extra REELFLOW_* variables given to the workers. */
  workerEnv: Record<string, string>;
  temporalServer: string;
  timeoutSeconds: number;
}

export interface Ratios {
  mode: 'off' | 'on';
  /** reelflow / baseline */
  wallTime: number | null;
  vendorCalls: number | null;
  peakRss: number | null;
  cpuSeconds: number | null;
}

export interface BenchReport {
  startedAt: string;
  command: string;
  machine: Machine;
  settings: {
    pipelines: number;
    callbacks: ('off' | 'on')[];
    workload: Workload;
    workers: number;
    getAssetRatePerSecond: number;
    /** Extra REELFLOW_* variables given to the workers. */
    workerEnv: Record<string, string>;
    temporalDb: 'file' | 'memory';
    /** e.g. "temporal-server on PostgreSQL, 4 history shards" (absent in older reports: the dev server). */
    temporalServer?: string;
    timeoutSeconds: number;
  };
  /**
   * ms: one pipeline's chain of vendor processing (what overhead is measured against);
   * wallMs: ms plus the vendor's GetAsset floor (all pipelines' GetAsset at its 10/s).
   */
  ideal: {
    ms: number;
    wallMs: number;
    byStage: Partial<Record<BenchStage, number>>;
    counts: string;
    getAssetVendorFloorMs: number;
  };
  minimumCalls: Record<string, number>;
  getAssetFloor: { ratePerSecond: number; callsPerPipeline: number; ms: number; explanation: string };
  runs: PhaseResult[];
  ratios: Ratios[];
  /** The issue's targets for this size, and where a run misses one. */
  targets: Targets;
  findings: string[];
  /** With --cpu-prof: where each profiled thread spent its CPU. */
  cpuProfiles?: ProfileSummary[];
}

export function ratiosFor(runs: PhaseResult[]): Ratios[] {
  const out: Ratios[] = [];
  for (const mode of ['off', 'on'] as const) {
    const r = runs.find((x) => x.system === 'reelflow' && x.callbacks === (mode === 'on'));
    const b = runs.find((x) => x.system === 'baseline' && x.callbacks === (mode === 'on'));
    if (!r || !b) continue;
    const sum = (p: PhaseResult, k: 'peakRssMb' | 'cpuSeconds') => p.processes.reduce((a, x) => a + x[k], 0);
    out.push({
      mode,
      wallTime: ratio(r.wallMs, b.wallMs),
      vendorCalls: ratio(r.callsTotal, b.callsTotal),
      peakRss: ratio(sum(r, 'peakRssMb'), sum(b, 'peakRssMb')),
      cpuSeconds: ratio(sum(r, 'cpuSeconds'), sum(b, 'cpuSeconds')),
    });
  }
  return out;
}

export function thresholdFindings(runs: PhaseResult[], ratios: Ratios[], pipelines: number): string[] {
  const t = targetsFor(pipelines);
  return runs
    .filter((r) => r.system === 'reelflow')
    .flatMap((r) => runFindings(r, t, ratios.find((q) => q.mode === (r.callbacks ? 'on' : 'off'))?.wallTime ?? null));
}

const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s` : 'n/a');
/** Fixed digits without trailing zeros after the point: 2.50 → 2.5, 100 → 100. */
export const num = (v: number, digits = 2) =>
  Number.isFinite(v)
    ? v
        .toFixed(digits)
        .replace(/(\.\d*?)0+$/, '$1')
        .replace(/\.$/, '')
    : 'n/a';
const times = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)}×`);
const mb = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)} MB` : 'n/a');
const tri = (s: Summary) => `${secs(s.p50)} / ${secs(s.p95)} / ${secs(s.p99)}`;

type Row = [string, ...string[]];
/** One cell per column (reelflow, baseline); '—' where that system did not run. */
type Cells = (f: (p: PhaseResult) => string) => string[];
interface TableContext {
  report: BenchReport;
  mode: 'off' | 'on';
  cols: (PhaseResult | undefined)[];
  cell: Cells;
}

/** "12 (GetAsset 10, CreateAsset 2)", or "0". */
const countWithBreakdown = (total: number, byKey: Record<string, number>) =>
  `${total}${
    total
      ? ` (${Object.entries(byKey)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')})`
      : ''
  }`;

/** Completion, wall time, pipeline time, overhead, and each stage's p50. */
function timeRows({ report, mode, cols, cell }: TableContext): Row[] {
  const idealMs = report.ideal.ms;
  const t = report.targets;
  return [
    [
      'pipelines completed',
      ...cell((p) => `${p.completed}/${p.pipelines}${p.failed ? ` (${p.failed} failed)` : ''}`),
      '',
    ],
    ['wall time', ...cell((p) => secs(p.wallMs)), `ideal ${secs(report.ideal.wallMs)}`],
    ['wall time / ideal', ...cell((p) => times(ratio(p.wallMs, report.ideal.wallMs))), '1.00×'],
    ['pipelines completed per second', ...cell((p) => num(p.pipelinesPerSecond)), ''],
    ['pipeline time p50 / p95 / p99', ...cell((p) => tri(p.pipelineMs)), ''],
    ['vendor processing per pipeline p50', ...cell((p) => secs(p.vendorMs.p50)), secs(idealMs)],
    [
      'overhead per pipeline p50 / p95 / p99',
      ...cell((p) => tri(p.overheadMs)),
      report.settings.pipelines <= t.overheadUpTo && mode === 'on' ? `≤ ${secs(t.overheadP50Ms)} at p50` : '',
    ],
    ['overhead p50 / pipeline ideal', ...cell((p) => `${num((p.overheadMs.p50 / idealMs) * 100, 0)}%`), ''],
    ...(['review', 'assets', 'generation', 'erase', 'archive'] as const)
      .filter((st) => cols.some((p) => p?.stageMs[st]))
      .map((st): Row => [
        `· ${st} stage p50${st === 'archive' ? ' (both downloads)' : ''}`,
        ...cell((p) => secs(p.stageMs[st]?.p50 ?? NaN)),
        st === 'archive' ? '' : `vendor ${secs(report.ideal.byStage[st] ?? NaN)}`,
      ]),
  ];
}

/** Vendor calls (all, then per endpoint), 429s, the GetAsset window, duplicates. */
function vendorRows({ report, cols, cell }: TableContext): Row[] {
  const t = report.targets;
  const endpoints = [
    ...new Set([...Object.keys(report.minimumCalls), ...cols.flatMap((p) => Object.keys(p?.callsPerPipeline ?? {}))]),
  ];
  return [
    [
      'vendor calls per pipeline (all)',
      ...cell((p) => num(p.callsTotal / p.pipelines)),
      num(Object.values(report.minimumCalls).reduce((a, c) => a + c, 0)),
    ],
    ...endpoints.map((e): Row => [
      `· ${e}`,
      ...cell((p) => num(p.callsPerPipeline[e] ?? 0)),
      String(report.minimumCalls[e] ?? 0),
    ]),
    ['429s received', ...cell((p) => countWithBreakdown(p.rateLimitedTotal, p.rateLimited)), '0'],
    [
      "· of those, the vendor's own (not injected)",
      ...cell((p) => countWithBreakdown(p.natural429Total, p.natural429)),
      String(t.natural429),
    ],
    [
      'GetAsset busiest 1-s window at the vendor (per token)',
      ...cell((p) => String(p.getAssetBusiestWindow.count)),
      `≤ ${t.getAssetWindow}`,
    ],
    ['extra vendor tasks (duplicates)', ...cell((p) => String(p.extraVendorTasks)), '0'],
  ];
}

/** History size, workflow tasks, memory and CPU of the run's own processes. */
function costRows({ report, cell }: TableContext): Row[] {
  const t = report.targets;
  return [
    [
      'history events per pipeline p50 / max',
      ...cell((p) => (p.historyEvents ? `${p.historyEvents.p50} / ${p.historyEvents.max}` : '—')),
      `p50 ≤ ${t.historyEventsP50}`,
    ],
    [
      'workflow tasks per pipeline p50 / p95',
      ...cell((p) => (p.workflowTasks ? `${p.workflowTasks.p50} / ${p.workflowTasks.p95}` : '—')),
      `p95 ≤ ${t.workflowTasksP95}`,
    ],
    [
      "workflow tasks' time per pipeline p50: queued for a workflow thread / running",
      ...cell((p) => (p.taskQueuedMs ? `${secs(p.taskQueuedMs.p50)} / ${secs(p.taskRunningMs!.p50)}` : '—')),
      '',
    ],
    [
      'start to first activity scheduled p50 / p95',
      ...cell((p) => (p.firstActivityMs ? `${secs(p.firstActivityMs.p50)} / ${secs(p.firstActivityMs.p95)}` : '—')),
      '',
    ],
    [
      'peak RSS (own processes)',
      ...cell((p) => p.processes.map((x) => mb(x.peakRssMb)).join(' + ')),
      `worker ≤ ${t.workerPeakRssMb} MB`,
    ],
    ['CPU seconds (own processes)', ...cell((p) => p.processes.map((x) => num(x.cpuSeconds, 1)).join(' + ')), ''],
    [
      'CPU s per pipeline (own processes + Temporal server)',
      ...cell((p) => num(cpuPerPipeline(p), 3)),
      `≤ ${t.cpuSecondsPerPipeline} (reelflow)`,
    ],
  ];
}

function callbackCell(c: PhaseResult['vendorCallbacks']): string {
  const within = c.deliveredWithin1s ?? 0; // reports written before it was counted lack it
  const share = c.sent > 0 ? ` (${within}, ${num((100 * within) / c.sent, 1)}%)` : '';
  return `${c.sent} / ${c.delivered}${share}`;
}

/** What ran beside: the Temporal server, PostgreSQL, the emulator, the machine; the vendor's callbacks. */
function contextRows({ cell }: TableContext): Row[] {
  const contextCpu = (p: PhaseResult, name: string) =>
    num(p.context.find((x) => x.name === name)?.cpuSeconds ?? NaN, 1);
  return [
    [
      'context: Temporal server CPU s / peak RSS',
      ...cell((p) => {
        const t = p.context.find((x) => x.name === 'temporal server');
        return t ? `${num(t.cpuSeconds, 1)} / ${mb(t.peakRssMb)}` : '—';
      }),
      '',
    ],
    ['context: PostgreSQL CPU s (real server only)', ...cell((p) => contextCpu(p, 'postgresql')), ''],
    ['context: emulator CPU s', ...cell((p) => contextCpu(p, 'emulator')), ''],
    [
      'machine CPU during the run: busy / capacity (others)',
      ...cell((p) => {
        const l = p.machineLoad;
        return l
          ? `${num(l.busySeconds, 0)} / ${num(l.capacitySeconds, 0)} s (${num(l.othersSeconds, 0)} s others)`
          : '—';
      }),
      '',
    ],
    [
      'vendor callbacks sent / delivered (2xx within 1 s)',
      ...cell((p) => (p.callbacks ? callbackCell(p.vendorCallbacks) : '—')),
      '',
    ],
  ];
}

function modeTable(report: BenchReport, mode: 'off' | 'on'): string[] {
  const r = report.runs.find((x) => x.system === 'reelflow' && x.callbacks === (mode === 'on'));
  const b = report.runs.find((x) => x.system === 'baseline' && x.callbacks === (mode === 'on'));
  const cols = [r, b];
  const table: TableContext = { report, mode, cols, cell: (f) => cols.map((p) => (p ? f(p) : '—')) };
  const rows = [...timeRows(table), ...vendorRows(table), ...costRows(table), ...contextRows(table)];
  const lines = [`## Callbacks ${mode}`, '', '| | reelflow | baseline | ideal / minimum |', '|---|---|---|---|'];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  const failures = cols.flatMap((p) => (p?.failures ?? []).map((f) => `${p!.system}: ${f}`));
  if (failures.length) lines.push('', 'Failures (first of each kind):', ...failures.map((f) => `- ${f}`));
  return lines;
}

/** The title, the command, the machine, the workload and what "ideal" means. */
function introLines(report: BenchReport): string[] {
  const s = report.settings;
  const m = report.machine;
  const w = s.workload;
  const stages = w.stages
    .map((st) =>
      st === 'assets'
        ? `assets (${w.assetsPerPipeline} per pipeline${w.fillGroup ? `, in a group already holding ${w.fillGroup}` : ''})`
        : st,
    )
    .join(' → ');
  return [
    `# reelflow benchmark — ${report.startedAt}`,
    '',
    `Command: \`${report.command}\``,
    '',
    `Machine: ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB.toFixed(1)} GiB RAM, Node ${m.node}, ${m.platform}` +
      `${m.temporalCli ? `, ${m.temporalCli}` : ''}; load average ${m.loadAverageAtStart.toFixed(2)} at start (the machine may be shared).`,
    '',
    `Workload: ${s.pipelines} pipelines started at once; ${stages}; archive ${w.archive ? 'on' : 'off'}` +
      `${w.stages.includes('assets') ? `; first GetAsset ${secs(w.timings.assetProcessingMs)} after CreateAsset (assets.firstReadAfter, the emulator's processing time; default ${ASSET_FIRST_READ_AFTER})` : ''}. ` +
      `Emulator in its own process with fixed times: ${Object.entries(report.ideal.byStage)
        .map(([k, v]) => `${k} ${secs(v)}`)
        .join(', ')} ` +
      `(tick ${w.timings.tickMs} ms). reelflow: ${s.workers} worker process${s.workers > 1 ? 'es' : ''} (\`node dist/workers/main.js\`) ` +
      `on ${s.temporalServer ?? `a Temporal dev server (SQLite ${s.temporalDb === 'memory' ? 'in memory' : 'file'})`}` +
      `${
        Object.keys(s.workerEnv).length
          ? ` with ${Object.entries(s.workerEnv)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''
      }; baseline: one process running a plain async loop per pipeline over the same vendor client.`,
    '',
    `Ideal: ${secs(report.ideal.wallMs)} of wall time = one pipeline's chain ${secs(report.ideal.ms)} ` +
      `+ the vendor's GetAsset floor ${secs(report.ideal.getAssetVendorFloorMs)} (every GetAsset of the run at the vendor's 10/s per token). ` +
      `Chain: ${report.ideal.counts}`,
    '',
    `GetAsset: reelflow sends at most ${report.getAssetFloor.ratePerSecond}/s per profile (server-enforced across workers, spaced in each worker); ` +
      `${report.getAssetFloor.explanation}`,
    '',
  ];
}

function ratioLines(report: BenchReport): string[] {
  if (!report.ratios.length) return [];
  return [
    '## Ratios reelflow / baseline',
    '',
    '| callbacks | wall time | vendor calls | peak RSS | CPU seconds |',
    '|---|---|---|---|---|',
    ...report.ratios.map(
      (q) =>
        `| ${q.mode} | ${times(q.wallTime)} | ${times(q.vendorCalls)} | ${times(q.peakRss)} | ${times(q.cpuSeconds)} |`,
    ),
    '',
  ];
}

/** With --cpu-prof: the threads that used at least 0.5 s, and their top packages. */
export function profileLines(profiles: ProfileSummary[] | undefined): string[] {
  const profiled = (profiles ?? []).filter((p) => p.totalMs >= 500);
  if (!profiled.length) return [];
  return [
    '## CPU profiles (self time by package; threads with ≥ 0.5 s)',
    '',
    '| profile | CPU | top packages |',
    '|---|---|---|',
    ...profiled.map((p) => {
      const tops = p.byPackage
        .slice(0, 6)
        .map((x) => `${x.name} ${(x.share * 100).toFixed(0)}%`)
        .join(', ');
      return `| ${p.file} | ${secs(p.totalMs)} | ${tops} |`;
    }),
    '',
  ];
}

const DEFINITIONS =
  "Definitions: pipeline time = the parent workflow's start to close (reelflow, server clock) or the loop's start to end (baseline); " +
  "vendor processing = created → terminal of the pipeline's own tasks along the chain, from the emulator's records; " +
  'overhead = pipeline time − vendor processing; calls = requests the emulator answered (429s included), ' +
  'busiest window = most GetAsset requests of one access token that the emulator received within 1 s (sliding, as its limiter counts); ' +
  'minimum = one create and one final query per task plus one download per archived video; ' +
  "history events and workflow tasks (WorkflowTaskCompleted) = summed over the pipeline's continue-as-new runs; " +
  'CPU seconds = utime + stime during the run; ' +
  'peak RSS = VmHWM of the process.';

export function renderMarkdown(report: BenchReport): string {
  const lines = [
    ...introLines(report),
    ...report.settings.callbacks.flatMap((mode) => [...modeTable(report, mode), '']),
    ...ratioLines(report),
    '## Targets',
    '',
    report.findings.length ? 'Missed:' : 'Every target met.',
    ...report.findings.map((f) => `- ${f}`),
    '',
    ...profileLines(report.cpuProfiles),
    DEFINITIONS,
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes <outDir>/bench-<ISO>.json and .md; returns their paths. */
export function writeReport(report: BenchReport, outDir: string): { json: string; md: string } {
  return writeReportFiles('bench', report.startedAt, report, renderMarkdown(report), outDir);
}
