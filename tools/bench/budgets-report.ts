/**
 * The budgets report (pure but for the write): one row per tenancy (none, count-only,
 * budget) with wall and CPU beside the no-tenant run's, history sizes, the ledger's
 * messages per pipeline and how much of the budget the run consumed; the target of
 * docs/benchmarks.md ("Budgets (--scenario budgets)"). Written to <outDir>/bench-budgets-<ISO>.{json,md}.
 */
import type { ProfileSummary } from './cpu-profile';
import type { LedgerMessages } from './history-counts';
import type { LedgerHistory } from './ledger-counts';
import { cpuPerPipeline, type PhaseResult } from './phase';
import { num, profileLines, type Machine, type ScenarioSettings } from './report';
import { writeReportFiles } from './report-files';
import { median as medianOf, ratio } from './stats';
import {
  BENCH_PRICES,
  type BudgetSizing,
  type BudgetsRunPlan,
  type BudgetsScenario,
  type Tenancy,
} from './budgets-plan';

/** docs/benchmarks.md#budgets---scenario-budgets: a budgeted pipeline costs at most this much of one without tenants. */
export const BUDGETS_TARGETS = { wallVsNone: 1.1, cpuVsNone: 1.1, consumedAtLeast: 0.9 };

/** What a run's ledgers held and did, read once the last pipeline ended. */
export interface LedgerReading {
  ids: string[];
  /** The budgets in force, summed over the ledgers read (minor units); absent: no budget. */
  budget?: number;
  spent: number;
  /** Still reserved after the wait for the settles: 0 when every pipeline settled. */
  reserved: number;
  unresolved: number;
  released: number;
  refused: number;
  /** Messages the ledgers received and had not handled when read: 0 once drained. */
  pending: number;
  /** From the last pipeline's end to the ledgers holding no reservation (or the wait's end). */
  drainMs: number;
  drained: boolean;
  history: LedgerHistory;
}

export interface BudgetsRun {
  plan: BudgetsRunPlan;
  /** The run's own tenant (none for `none`). */
  tenant?: string;
  tenantsFile?: object;
  ledger?: LedgerReading;
  result: PhaseResult;
}

/** A ledger's own work per pipeline of the run. */
export interface LedgerSide {
  signalsReceived: number;
  signalsSent: number;
  events: number;
  workflowTasks: number;
  activities: number;
}

export interface BudgetsRow {
  tenancy: Tenancy;
  rounds: number;
  pipelines: number;
  /** Completed pipelines, summed over the rounds. */
  completed: number;
  /** Medians over the rounds; ratios are the median of each round's ratio to that round's `none`. */
  wallMs: number;
  wallRatio: number | null;
  cpuPerPipeline: number;
  cpuRatio: number | null;
  eventsP50: number;
  workflowTasksP50: number;
  /** Workflow tasks timed out before a worker took them, mean per pipeline (median over rounds; NaN when not read). */
  taskTimeouts: number;
  firstActivityP50Ms: number;
  /** Budget rows: the ledger's answer to the pipeline's workflow task that read it, p50 (NaN without answers). */
  answerWaitP50Ms: number;
  /** Pipeline side, per pipeline: asks, answers received, settles sent. */
  ledgerMessages?: LedgerMessages & { total: number };
  ledgerSide?: LedgerSide;
  /** Spent ÷ budget, 0..1 (budget rows only). */
  consumed?: number;
  workerPeakRssMb: number;
}

const median = (xs: number[]) => medianOf(xs.filter(Number.isFinite));
const medianOrNull = (xs: (number | null)[]) => {
  const m = median(xs.filter((x): x is number => x !== null));
  return Number.isFinite(m) ? m : null;
};
const sumValues = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);

/** A ledger's history per pipeline of the run. */
export function ledgerSideOf(h: LedgerHistory, pipelines: number): LedgerSide {
  return {
    signalsReceived: sumValues(h.signalsReceived) / pipelines,
    signalsSent: sumValues(h.signalsSent) / pipelines,
    events: h.events / pipelines,
    workflowTasks: h.workflowTasks / pipelines,
    activities: sumValues(h.activities) / pipelines,
  };
}

const workerRss = (r: PhaseResult) => r.processes.reduce((a, x) => a + x.peakRssMb, 0);

/** The medians of one field over the runs' ledger messages (undefined when no run had any). */
function medianMessages(runs: BudgetsRun[]): BudgetsRow['ledgerMessages'] {
  const m = runs.map((r) => r.result.ledgerMessages).filter((x): x is LedgerMessages => x !== undefined);
  if (!m.length) return undefined;
  const asks = median(m.map((x) => x.asks));
  const answers = median(m.map((x) => x.answers));
  const settles = median(m.map((x) => x.settles));
  return { asks, answers, settles, total: median(m.map((x) => x.asks + x.answers + x.settles)) };
}

function medianLedgerSide(runs: BudgetsRun[]): LedgerSide | undefined {
  const sides = runs.flatMap((r) => (r.ledger ? [ledgerSideOf(r.ledger.history, r.result.pipelines)] : []));
  if (!sides.length) return undefined;
  const m = (k: keyof LedgerSide) => median(sides.map((s) => s[k]));
  return {
    signalsReceived: m('signalsReceived'),
    signalsSent: m('signalsSent'),
    events: m('events'),
    workflowTasks: m('workflowTasks'),
    activities: m('activities'),
  };
}

/** Spent ÷ budget of each run with a budget, their median; undefined without one. */
function medianConsumed(runs: BudgetsRun[]): number | undefined {
  const shares = runs.flatMap((r) => (r.ledger?.budget ? [r.ledger.spent / r.ledger.budget] : []));
  return shares.length ? median(shares) : undefined;
}

/** One row per tenancy run, in the scenario's order (pure). */
export function budgetsRows(runs: BudgetsRun[]): BudgetsRow[] {
  const tenancies = [...new Set(runs.map((r) => r.plan.tenancy))];
  const noneOf = (round: number) => runs.find((r) => r.plan.tenancy === 'none' && r.plan.round === round)?.result;
  return tenancies.map((tenancy): BudgetsRow => {
    const own = runs.filter((r) => r.plan.tenancy === tenancy);
    const results = own.map((r) => r.result);
    const vsNone = (f: (p: PhaseResult) => number) =>
      medianOrNull(
        own.map((r) => {
          const none = noneOf(r.plan.round);
          return none ? ratio(f(r.result), f(none)) : null;
        }),
      );
    const consumed = medianConsumed(own);
    const ledgerMessages = medianMessages(own);
    const ledgerSide = medianLedgerSide(own);
    return {
      tenancy,
      rounds: own.length,
      pipelines: results[0]?.pipelines ?? 0,
      completed: results.reduce((a, r) => a + r.completed, 0),
      wallMs: median(results.map((r) => r.wallMs)),
      wallRatio: vsNone((p) => p.wallMs),
      cpuPerPipeline: median(results.map(cpuPerPipeline)),
      cpuRatio: vsNone(cpuPerPipeline),
      eventsP50: median(results.map((r) => r.historyEvents?.p50 ?? NaN)),
      workflowTasksP50: median(results.map((r) => r.workflowTasks?.p50 ?? NaN)),
      taskTimeouts: median(results.map((r) => r.taskTimeoutsPerPipeline ?? NaN)),
      firstActivityP50Ms: median(results.map((r) => r.firstActivityMs?.p50 ?? NaN)),
      answerWaitP50Ms: median(results.map((r) => r.answerWaitMs?.p50 ?? NaN)),
      ...(ledgerMessages ? { ledgerMessages } : {}),
      ...(ledgerSide ? { ledgerSide } : {}),
      ...(consumed !== undefined ? { consumed } : {}),
      workerPeakRssMb: median(results.map(workerRss)),
    };
  });
}

/** What went wrong in one run: failed pipelines, a ledger that refused, stayed reserved, or was asked again. */
function runProblems(r: BudgetsRun): string[] {
  const out: string[] = [];
  const { label } = r.plan;
  if (r.result.failed) out.push(`${label}: ${r.result.failed} of ${r.result.pipelines} pipelines did not complete`);
  const l = r.ledger;
  if (!l) return out;
  if (l.refused) out.push(`${label}: the ledger refused ${l.refused} messages`);
  if (!l.drained)
    out.push(
      `${label}: after the wait the ledger still held ${l.reserved} minor units reserved, ${l.pending} messages unhandled`,
    );
  if (l.unresolved) out.push(`${label}: ${l.unresolved} unresolved reservations`);
  const m = r.result.ledgerMessages;
  if (m && m.asks > 1) out.push(`${label}: ${num(m.asks)} asks per pipeline (a refusal, a wait or a lost answer)`);
  return out;
}

/** The budget rows against the target, every run's problems (pure). */
export function budgetsFindings(rows: BudgetsRow[], runs: BudgetsRun[]): string[] {
  const t = BUDGETS_TARGETS;
  const findings = runs.flatMap(runProblems);
  for (const row of rows.filter((x) => x.tenancy === 'budget')) {
    if (row.wallRatio !== null && row.wallRatio > t.wallVsNone)
      findings.push(`budget: wall ${row.wallRatio.toFixed(3)}× none, target ≤ ${t.wallVsNone}×`);
    if (row.cpuRatio !== null && row.cpuRatio > t.cpuVsNone)
      findings.push(`budget: CPU per pipeline ${row.cpuRatio.toFixed(3)}× none, target ≤ ${t.cpuVsNone}×`);
    if (row.consumed !== undefined && (row.consumed < t.consumedAtLeast || row.consumed > 1))
      findings.push(`budget: ${pct(row.consumed)} of the budget consumed, sized for 90–100%`);
  }
  return findings;
}

export interface BudgetsReport {
  startedAt: string;
  command: string;
  machine: Machine;
  settings: ScenarioSettings & {
    scenario: BudgetsScenario;
    pipelines: number;
    prices: typeof BENCH_PRICES;
    budget: BudgetSizing;
  };
  rows: BudgetsRow[];
  findings: string[];
  /** Every run's full measures (per pipeline too), its tenants file and ledger reading. */
  runs: BudgetsRun[];
  /** With --cpu-prof: where each profiled thread spent its CPU. */
  cpuProfiles?: ProfileSummary[];
}

const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'n/a');
const times = (v: number | null) => (v === null ? '—' : `${v.toFixed(2)}×`);
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const TITLES: Record<Tenancy, string> = { none: 'none', count: 'count-only', budget: 'budget' };

function messagesCell(m: BudgetsRow['ledgerMessages']): string {
  return m ? `${num(m.total)} (${num(m.asks)} + ${num(m.answers)} + ${num(m.settles)})` : '—';
}

function ledgerSideCell(s: LedgerSide | undefined): string {
  return s
    ? `${num(s.signalsReceived)} / ${num(s.signalsSent)}; ${num(s.events, 1)} / ${num(s.workflowTasks, 1)} / ${num(s.activities)}`
    : '—';
}

/** One row per tenancy. */
function sideBySide(rows: BudgetsRow[]): string[] {
  return [
    '| tenancy | completed | wall | ÷ none | CPU s per pipeline (worker + server) | ÷ none | events / workflow tasks p50; tasks timed out per pipeline | start to first activity p50 (of it, the answer queued for a workflow task, p50) | ledger messages per pipeline (ask activities + answers + settle activities) | ledger per pipeline: signals in / out; events / workflow tasks / activities | budget consumed | worker peak RSS |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${TITLES[r.tenancy]} | ${r.completed}/${r.pipelines * r.rounds} | ${secs(r.wallMs)} | ${times(r.wallRatio)} | ` +
        `${num(r.cpuPerPipeline, 3)} | ${times(r.cpuRatio)} | ${num(r.eventsP50)} / ${num(r.workflowTasksP50)}; ${num(r.taskTimeouts, 1)} | ` +
        `${secs(r.firstActivityP50Ms)}${Number.isFinite(r.answerWaitP50Ms) ? ` (${secs(r.answerWaitP50Ms)})` : ''} | ${messagesCell(r.ledgerMessages)} | ${ledgerSideCell(r.ledgerSide)} | ` +
        `${r.consumed !== undefined ? pct(r.consumed) : '—'} | ${num(r.workerPeakRssMb, 0)} MB |`,
    ),
  ];
}

/** Every run in order, so rounds and drift show. */
function runLines(report: BudgetsReport): string[] {
  return [
    '| run | wall | CPU s per pipeline: worker + server | events p50 | machine busy / capacity (others) | ledger: spent / budget; reserved left; drain | ledger signals in; out; activities |',
    '|---|---|---|---|---|---|---|',
    ...report.runs.map((r) => {
      const p = r.result;
      const l = r.ledger;
      const load = p.machineLoad
        ? `${num(p.machineLoad.busySeconds, 0)} / ${num(p.machineLoad.capacitySeconds, 0)} s (${num(p.machineLoad.othersSeconds, 0)} s)`
        : '—';
      const money = l
        ? `${l.spent} / ${l.budget ?? 'none'}; ${l.reserved}; ${secs(l.drainMs)}${l.drained ? '' : ' (not drained)'}`
        : '—';
      const byName = (m: Record<string, number>) =>
        Object.entries(m)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || '0';
      const signals = l
        ? `${byName(l.history.signalsReceived)}; ${byName(l.history.signalsSent)}; ${byName(l.history.activities)}`
        : '—';
      const server = p.context.find((x) => x.name === 'temporal server')?.cpuSeconds ?? NaN;
      const cpu = `${num(cpuPerPipeline(p), 3)}: ${num(cpuPerPipeline(p) - server / p.pipelines, 3)} + ${num(server / p.pipelines, 3)}`;
      return `| ${r.plan.label} | ${secs(p.wallMs)} | ${cpu} | ${p.historyEvents?.p50 ?? '—'} | ${load} | ${money} | ${signals} |`;
    }),
  ];
}

function introLines(report: BudgetsReport): string[] {
  const s = report.settings;
  const m = report.machine;
  const stages = s.workload.stages
    .map((st) => (st === 'assets' ? `assets (${s.workload.assetsPerPipeline} per pipeline)` : st))
    .join(' → ');
  const prices = Object.entries(s.prices)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `# reelflow budgets benchmark — ${report.startedAt}`,
    '',
    `Command: \`${report.command}\``,
    '',
    `Machine: ${m.cores} cores (${m.cpuModel}), Node ${m.node}; load average ${m.loadAverageAtStart.toFixed(2)} at start (the machine may be shared).`,
    '',
    `Each run: ${s.pipelines} pipelines started at once, ${stages}${s.workload.archive ? ' → archive' : ''} (the default bench's workload), ` +
      `callbacks ${s.callbacks}, ${s.workers} worker process${s.workers > 1 ? 'es' : ''} on ${s.temporalServer}; ` +
      `a fresh emulator, worker, task queue and tenant per run. Order: ${s.scenario.rounds} round${s.scenario.rounds > 1 ? 's' : ''} of ${s.scenario.tenancies.join(', ')}${s.scenario.rounds > 1 ? ', in reverse every second round' : ''}.`,
    '',
    `Tenancies: none = no tenants file; count-only = a tenants file whose \`defaultTenant\` takes every pipeline, prices set, no budget; ` +
      `budget = the same with a daily budget of ${s.budget.amount} (the run's planned creates, ${s.budget.plannedMinor} minor units, are ${pct(s.budget.share)} of it). ` +
      `Prices: ${prices}.`,
    '',
  ];
}

const DEFINITIONS =
  "Definitions: wall = the first pipeline's start to the last one's close (server clock); " +
  'CPU = utime + stime of the worker(s) and the Temporal server from the first start until the ledger held no reservation, per pipeline; ' +
  "÷ none = the median over rounds of each run's ratio to the `none` run of its round; other figures are medians over rounds; " +
  "ledger messages = from each pipeline's history: askSpend local activities (a signal-with-start each), spendAnswered signals received, settleSpend signals sent; " +
  "ledger per pipeline = the ledger workflows' own histories (every run), divided by the pipelines; " +
  "budget consumed = the ledgers' confirmed spend ÷ their budget once every pipeline settled.";

export function renderBudgetsMarkdown(report: BudgetsReport): string {
  const t = BUDGETS_TARGETS;
  const lines = [
    ...introLines(report),
    '## Side by side',
    '',
    ...sideBySide(report.rows),
    '',
    '## Runs',
    '',
    ...runLines(report),
    '',
    '## Target',
    '',
    `A budgeted pipeline costs at most ${t.wallVsNone}× the wall and the CPU of one without tenants, and the run consumes at least ${pct(t.consumedAtLeast)} of its budget.`,
    '',
    report.findings.length ? 'Missed or failed:' : 'Met.',
    ...report.findings.map((f) => `- ${f}`),
    '',
    ...profileLines(report.cpuProfiles),
    DEFINITIONS,
  ];
  return `${lines.join('\n')}\n`;
}

export function writeBudgetsReport(report: BudgetsReport, outDir: string): { json: string; md: string } {
  return writeReportFiles('bench-budgets', report.startedAt, report, renderBudgetsMarkdown(report), outDir);
}
