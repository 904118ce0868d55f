/**
 * The stream-mechanisms bench's report (docs/benchmarks.md, "Gateway event streams"): the
 * JSON as run, and Markdown tables with the mechanisms side by side in the order they ran.
 */
import type { HistoryLevel, HistorySummary, LatencySummary, LoadResult } from './runs';
import type { Mechanism } from './feeds';

export interface MechanismRun {
  mechanism: Mechanism;
  taskQueue: string;
  /** By subscribers per workflow ("0", "1", "10"); absent for the unwatched baseline. */
  history?: Record<string, HistoryLevel>;
  load: LoadResult;
  workerExit: string;
}

export interface StreamBenchReport {
  startedAt: string;
  commit: string;
  machine: { cores: number; cpuModel: string; memoryGiB: number; node: string; loadAverageAtStart: number[] };
  server: string;
  options: {
    workflows: number;
    subscribers: number;
    historyWorkflows: number;
    changes: number;
    gapMs: number;
    pollMs: number;
    mechanisms: Mechanism[];
  };
  runs: MechanismRun[];
  seconds: number;
}

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const LABELS: Record<Mechanism, string> = {
  none: 'nobody watching',
  query: 'query polling',
  streams: 'Workflow Streams',
  'streams-shared': 'Workflow Streams, shared',
  sinks: 'sinks push',
};

function headers(runs: MechanismRun[]): string[] {
  const seen = new Map<Mechanism, number>();
  return runs.map((r) => {
    const n = (seen.get(r.mechanism) ?? 0) + 1;
    seen.set(r.mechanism, n);
    return n > 1 ? `${LABELS[r.mechanism]} (run ${n})` : LABELS[r.mechanism];
  });
}

function table(head: string[], rows: [string, ...string[]][]): string {
  return [
    `| | ${head.join(' | ')} |`,
    `|---|${head.map(() => '---').join('|')}|`,
    ...rows.map(([label, ...cells]) => `| ${label} | ${cells.join(' | ')} |`),
  ].join('\n');
}

const UPDATE_TYPES = ['WorkflowExecutionUpdateAccepted', 'WorkflowExecutionUpdateCompleted'];

function historyCell(h: HistorySummary | undefined): string {
  if (!h) return '—';
  const m = h.meanByType;
  const updates = updateEvents(h);
  const range = h.minTotal === h.maxTotal ? '' : ` (${h.minTotal}–${h.maxTotal})`;
  return `${f(m.total, 1)}${range}: ${f(m.WorkflowTaskCompleted ?? 0, 1)} WFT completed, ${f(updates, 1)} update events`;
}

const latencyCell = (l: LatencySummary | undefined) => (l?.n ? `${f(l.p50)} / ${f(l.p95)} ms (${f(l.max)})` : '—');

function historyTable(report: StreamBenchReport): string {
  const runs = report.runs.filter((r) => r.history);
  if (!runs.length) return '(no history run)';
  const row = (label: string, cell: (r: MechanismRun) => string): [string, ...string[]] => [label, ...runs.map(cell)];
  return table(headers(runs), [
    ...['0', '1', '10'].map((s) => row(`${s} subscriber${s === '1' ? '' : 's'}`, (r) => historyCell(r.history?.[s]))),
    ...['1', '10'].map((s) =>
      row(`change → subscriber with ${s}, p50 / p95 (max)`, (r) => latencyCell(r.history?.[s]?.latencyMs)),
    ),
  ]);
}

const per100 = (value: number, subscribers: number) => (subscribers > 0 ? (100 * value) / subscribers : NaN);
const updateEvents = (h: HistorySummary) => UPDATE_TYPES.reduce((n, t) => n + (h.meanByType[t] ?? 0), 0);

/**
 * A process's cost per 100 subscribers: its CPU above the unwatched run's, and its RSS growth
 * during the run (peak minus start) above the unwatched run's growth.
 */
function above(l: LoadResult, base: LoadResult | undefined, side: 'bench' | 'worker'): string {
  if (!base || l.subscribers === 0) return '—';
  const growth = (x: LoadResult) => x[side].peakRssMb - x[side].rssBeforeMb;
  const cpu = per100(l[side].cpuPercent - base[side].cpuPercent, l.subscribers);
  const rss = per100(growth(l) - growth(base), l.subscribers);
  return `${f(cpu, 1)} % / ${f(rss, 1)} MB`;
}

const use = (p: LoadResult['bench']) => `${f(p.cpuPercent, 1)} % / ${f(p.rssBeforeMb)} → ${f(p.peakRssMb)} MB`;

function loadRows(runs: MechanismRun[]): [string, ...string[]][] {
  const base = runs.find((r) => r.mechanism === 'none')?.load;
  const row = (label: string, cell: (l: LoadResult) => string): [string, ...string[]] => [
    label,
    ...runs.map((r) => cell(r.load)),
  ];
  return [
    row(
      'workflows × subscribers',
      (l) => `${l.workflows} × ${l.subscribers / l.workflows}${l.timedOut ? ' (timed out)' : ''}`,
    ),
    row('change → subscriber, p50 / p95 (max)', (l) =>
      l.latencyMs.n ? `${f(l.latencyMs.p50)} / ${f(l.latencyMs.p95)} ms (${f(l.latencyMs.max)})` : '—',
    ),
    row('changes timed', (l) => String(l.latencyMs.n)),
    row('versions received / sent', (l) => `${l.versionsReceived} / ${l.versionsExpected}`),
    row('subscribers without the last change / failed', (l) => `${l.missedLast} / ${l.failed}`),
    row('bench (subscriber side) CPU / RSS start → peak', (l) => use(l.bench)),
    row('… per 100 subscribers, above nobody watching: CPU / RSS growth', (l) => above(l, base, 'bench')),
    row('worker CPU / RSS start → peak', (l) => use(l.worker)),
    row('… per 100 subscribers, above nobody watching: CPU / RSS growth', (l) => above(l, base, 'worker')),
    row('dev server CPU / RSS start → peak', (l) => use(l.server)),
    row(
      'queries / Updates / sink pushes, per s',
      (l) => `${f(l.queriesPerSecond, 1)} / ${f(l.updatesPerSecond, 1)} / ${f(l.pushesPerSecond, 1)}`,
    ),
    row(
      'history events per workflow (update events)',
      (l) => `${f(l.history.meanByType.total, 1)} (${f(updateEvents(l.history), 1)})`,
    ),
    row('starts', (l) => `${f(l.startsPerSecond, 1)} /s`),
    row('run time', (l) => `${f(l.seconds, 1)} s`),
    row(
      'machine busy (2 cores) / load average',
      (l) =>
        `${f(l.machine.busyPercent)} % / ${f(l.machine.loadAverage1m.start, 1)} → ${f(l.machine.loadAverage1m.end, 1)}`,
    ),
  ];
}

export function markdownOf(report: StreamBenchReport): string {
  const o = report.options;
  const m = report.machine;
  return [
    `# Stream mechanisms, ${report.startedAt}`,
    '',
    `Commit ${report.commit}; ${m.cores} cores (${m.cpuModel}), ${f(m.memoryGiB, 1)} GiB, Node ${m.node}; ` +
      `load average at start ${m.loadAverageAtStart.map((x) => f(x, 2)).join(' / ')}; ${report.server}.`,
    `Each workflow: ${o.changes} changes, ${o.gapMs} ms apart on average (a timer each, 0.5..1.5 × that); ` +
      `query poll every ${o.pollMs} ms. ` +
      `Whole run ${f(report.seconds)} s.`,
    '',
    `## History events per workflow (${o.historyWorkflows} workflows each; mean, (min–max))`,
    '',
    historyTable(report),
    '',
    `## Load: ${o.workflows} workflows × ${o.subscribers} subscribers`,
    '',
    table(headers(report.runs), loadRows(report.runs)),
    '',
    ...report.runs.flatMap((r) =>
      r.load.errors.length ? [`- ${r.mechanism} errors: ${r.load.errors.join('; ')}`] : [],
    ),
  ].join('\n');
}
