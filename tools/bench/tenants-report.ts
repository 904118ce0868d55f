/**
 * The noisy-neighbour report (pure but for the write): per run, tenant A's and tenant
 * B's times from the server's start and close of each pipeline, the busiest GetAsset
 * second, the vendor's own 429s and the duplicates; each variant against the solo runs
 * and the issue's targets. Written to <outDir>/bench-tenants-<ISO>.{json,md}.
 */
import type { PhaseResult } from './phase';
import { num, type Machine, type ScenarioSettings } from './report';
import { writeReportFiles } from './report-files';
import { ratio, summarize, type Summary } from './stats';
import type { TenantsRunPlan, TenantsScenario, TenantVariant } from './tenants-plan';

/** docs/benchmarks.md#noisy-neighbour-tenants: the issue's targets. */
export const TENANTS_TARGETS = { bP50VsSolo: 1.5, aWallVsSolo: 1.05, natural429: 0, duplicates: 0 };

export interface GroupTimes {
  pipelines: number;
  completed: number;
  /** Start to end of each completed pipeline (first run's start to latest run's close, server clock). */
  pipelineMs: Summary;
  /** The group's first start to its last close, every pipeline counted. */
  wallMs: number;
}

type PerPipeline = PhaseResult['perPipeline'][number];

/** Times of the pipelines with index from..from+count−1. */
export function groupTimes(perPipeline: readonly PerPipeline[], from: number, count: number): GroupTimes {
  const own = perPipeline.filter((p) => p.index >= from && p.index < from + count);
  const ok = own.filter((p) => p.ok);
  const starts = own.map((p) => p.startMs ?? NaN).filter(Number.isFinite);
  const closes = own.map((p) => p.closeMs ?? NaN).filter(Number.isFinite);
  return {
    pipelines: count,
    completed: ok.length,
    pipelineMs: summarize(ok.map((p) => p.pipelineMs)),
    wallMs: starts.length && closes.length ? Math.max(...closes) - Math.min(...starts) : NaN,
  };
}

export interface TenantsRunSummary {
  label: TenantsRunPlan['label'];
  A?: GroupTimes;
  B?: GroupTimes;
  /** The whole run: the first start to the last close (ms). */
  wallMs: number;
  getAssetBusiestSecond: number;
  natural429: number;
  duplicates: number;
}

export function runSummary(plan: TenantsRunPlan, r: PhaseResult): TenantsRunSummary {
  const out: TenantsRunSummary = {
    label: plan.label,
    wallMs: groupTimes(r.perPipeline, 0, r.pipelines).wallMs,
    getAssetBusiestSecond: r.getAssetBusiestWindow.count,
    natural429: r.natural429Total,
    duplicates: r.extraVendorTasks,
  };
  let from = 0;
  plan.waves.forEach((w, i) => {
    out[plan.groups[i]] = groupTimes(r.perPipeline, from, w.count);
    from += w.count;
  });
  return out;
}

export interface TargetCheck {
  target: string;
  /** The measured value as shown; "n/a" without a solo run or a completed pipeline. */
  got: string;
  /** null: not measurable in this run. */
  met: boolean | null;
}

/** The issue's four targets for one variant run, against the solo runs of the same bench run. */
export function variantChecks(
  v: TenantsRunSummary,
  soloA?: TenantsRunSummary,
  soloB?: TenantsRunSummary,
): TargetCheck[] {
  const t = TENANTS_TARGETS;
  const within = (q: number | null, limit: number): Omit<TargetCheck, 'target'> =>
    q === null ? { got: 'n/a', met: null } : { got: `${q.toFixed(2)}×`, met: q <= limit };
  const count = (n: number, limit: number) => ({ got: String(n), met: n <= limit });
  return [
    {
      target: `B p50 ≤ ${t.bP50VsSolo}× solo`,
      ...within(ratio(v.B?.pipelineMs.p50 ?? NaN, soloB?.B?.pipelineMs.p50 ?? NaN), t.bP50VsSolo),
    },
    {
      target: `A wall ≤ ${t.aWallVsSolo}× solo`,
      ...within(ratio(v.A?.wallMs ?? NaN, soloA?.A?.wallMs ?? NaN), t.aWallVsSolo),
    },
    { target: `natural 429s = ${t.natural429}`, ...count(v.natural429, t.natural429) },
    { target: `duplicates = ${t.duplicates}`, ...count(v.duplicates, t.duplicates) },
  ];
}

export interface TenantsRun {
  plan: TenantsRunPlan;
  summary: TenantsRunSummary;
  /** Everything the run measured, as the default bench reports it (per pipeline too). */
  result: PhaseResult;
}

export interface TenantsReport {
  startedAt: string;
  command: string;
  machine: Machine;
  settings: ScenarioSettings & {
    scenario: TenantsScenario;
    /** The server's matching.useNewMatcher, enableFairness, enableMigration ("unset": off). */
    matcher: Record<string, string>;
    /** REELFLOW_TENANTS_FILE of every run but `off`. */
    tenantsFile: object;
  };
  runs: TenantsRun[];
  checks: Partial<Record<TenantVariant, TargetCheck[]>>;
  /** Every missed target, and every run with failed pipelines. */
  findings: string[];
}

/** The checks of every variant run, and the findings: a matcher without fairness, missed targets, failed pipelines. */
export function checksAndFindings(
  runs: TenantsRun[],
  matcher: Record<string, string>,
): Pick<TenantsReport, 'checks' | 'findings'> {
  const solo = (label: string) => runs.find((r) => r.plan.label === label)?.summary;
  const checks: TenantsReport['checks'] = {};
  const findings: string[] = [];
  const off = Object.entries(matcher).filter(([k, v]) => k !== 'matching.enableMigration' && v !== 'true');
  if (off.length)
    findings.push(
      `the server runs without ${off.map(([k]) => k).join(' and ')}: priority and fairness keys take no effect`,
    );
  for (const r of runs) {
    if (r.result.failed) findings.push(`${r.plan.label}: ${r.result.failed} of ${r.result.pipelines} pipelines failed`);
    if (r.plan.label === 'solo-a' || r.plan.label === 'solo-b') continue;
    const c = variantChecks(r.summary, solo('solo-a'), solo('solo-b'));
    checks[r.plan.label] = c;
    for (const x of c.filter((x) => x.met === false)) findings.push(`${r.plan.label}: ${x.target} missed (${x.got})`);
  }
  return { checks, findings };
}

const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'n/a');
const times = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)}×`);

export const RUN_TITLES: Record<TenantsRunPlan['label'], string> = {
  'solo-b': 'B alone',
  'solo-a': 'A alone',
  priority: '(a) priority + fairness',
  fairness: '(b) fairness only',
  off: '(c) no keys',
};

/** One row per measure, one column per run. */
function sideBySide(report: TenantsReport): string[] {
  const runs = report.runs.map((r) => r.summary);
  const soloA = runs.find((r) => r.label === 'solo-a');
  const soloB = runs.find((r) => r.label === 'solo-b');
  const row = (name: string, f: (r: TenantsRunSummary) => string) => `| ${name} | ${runs.map(f).join(' | ')} |`;
  const g = (r: TenantsRunSummary, who: 'A' | 'B', f: (x: GroupTimes) => string) => (r[who] ? f(r[who]) : '—');
  return [
    `| | ${runs.map((r) => RUN_TITLES[r.label]).join(' | ')} |`,
    `|---|${runs.map(() => '---|').join('')}`,
    row('B completed', (r) => g(r, 'B', (x) => `${x.completed}/${x.pipelines}`)),
    row('B start-to-end p50 / p95', (r) => g(r, 'B', (x) => `${secs(x.pipelineMs.p50)} / ${secs(x.pipelineMs.p95)}`)),
    row('B p50 / p95 ÷ B alone', (r) =>
      g(r, 'B', (x) => {
        const s = soloB?.B?.pipelineMs;
        return `${times(ratio(x.pipelineMs.p50, s?.p50 ?? NaN))} / ${times(ratio(x.pipelineMs.p95, s?.p95 ?? NaN))}`;
      }),
    ),
    row('A completed', (r) => g(r, 'A', (x) => `${x.completed}/${x.pipelines}`)),
    row('A wall (first start to last end)', (r) => g(r, 'A', (x) => secs(x.wallMs))),
    row('A wall ÷ A alone', (r) => g(r, 'A', (x) => times(ratio(x.wallMs, soloA?.A?.wallMs ?? NaN)))),
    row('A start-to-end p50 / p95', (r) => g(r, 'A', (x) => `${secs(x.pipelineMs.p50)} / ${secs(x.pipelineMs.p95)}`)),
    row('busiest GetAsset second (per token)', (r) => String(r.getAssetBusiestSecond)),
    row("natural 429s (the vendor's own)", (r) => String(r.natural429)),
    row('duplicates (extra vendor tasks)', (r) => String(r.duplicates)),
  ];
}

function targetTable(report: TenantsReport): string[] {
  const variants = Object.keys(report.checks) as TenantVariant[];
  if (!variants.length) return [];
  const first = report.checks[variants[0]] ?? [];
  const mark = (c: TargetCheck | undefined) =>
    !c ? '—' : c.met === null ? `${c.got}` : `${c.got} ${c.met ? 'met' : '**missed**'}`;
  return [
    `| target | ${variants.map((v) => RUN_TITLES[v]).join(' | ')} |`,
    `|---|${variants.map(() => '---|').join('')}`,
    ...first.map((c, i) => `| ${c.target} | ${variants.map((v) => mark(report.checks[v]?.[i])).join(' | ')} |`),
  ];
}

function introLines(report: TenantsReport): string[] {
  const s = report.settings;
  const sc = s.scenario;
  const m = report.machine;
  const stages = s.workload.stages
    .map((st) => (st === 'assets' ? `assets (${s.workload.assetsPerPipeline} per pipeline)` : st))
    .join(' → ');
  return [
    `# reelflow noisy-neighbour benchmark — ${report.startedAt}`,
    '',
    `Command: \`${report.command}\``,
    '',
    `Machine: ${m.cores} cores (${m.cpuModel}), Node ${m.node}; load average ${m.loadAverageAtStart.toFixed(2)} at start (the machine may be shared).`,
    '',
    `Load: tenant A starts ${sc.aPipelines} pipelines at once; ${num(sc.bDelayMs / 1000)} s later tenant B starts ${sc.bPipelines}. ` +
      `One credential profile, so one GetAsset queue at ${s.getAssetRatePerSecond}/s for both. ` +
      `Each pipeline: ${stages}${s.workload.archive ? ' → archive' : ''} (the default bench's workload), callbacks ${s.callbacks}. ` +
      `${s.workers} worker process${s.workers > 1 ? 'es' : ''} on ${s.temporalServer}, a fresh emulator, worker and task queue per run.`,
    '',
    `Matcher: ${Object.entries(s.matcher)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    'Runs: B alone and A alone (at their (a) levels, tenants file on), then ' +
      '(a) A `batch`, B `interactive`, tenants as fairness keys; ' +
      '(b) both `normal`, tenants as fairness keys (fairness alone); ' +
      '(c) no tenants file, no tenant, no priority: no keys at all. ' +
      `Tenants file: \`${JSON.stringify(s.tenantsFile)}\`.`,
    '',
  ];
}

export function renderTenantsMarkdown(report: TenantsReport): string {
  const lines = [
    ...introLines(report),
    '## Side by side',
    '',
    ...sideBySide(report),
    '',
    '## Targets',
    '',
    ...targetTable(report),
    '',
    report.findings.length ? 'Missed or failed:' : 'Every target met.',
    ...report.findings.map((f) => `- ${f}`),
    '',
    "Definitions: start-to-end = the first run's start to the latest run's close on the server; " +
      "A wall = A's first start to A's last close; busiest GetAsset second = most GetAsset requests of one access token " +
      "the emulator received within 1 s (sliding); natural 429s = the vendor's own (the bench injects none); " +
      "duplicates = vendor tasks created beyond one per step. Every run's full measures are in the JSON.",
  ];
  return `${lines.join('\n')}\n`;
}

export function writeTenantsReport(report: TenantsReport, outDir: string): { json: string; md: string } {
  return writeReportFiles('bench-tenants', report.startedAt, report, renderTenantsMarkdown(report), outDir);
}
