/** Command-line flags of `npm run bench` (pure: parsing and validation only). */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { GETASSET_MAX_PER_SECOND } from '../../src/vendor-api/documented-values';
import { DEFAULT_BUDGETS_SCENARIO, TENANCIES, type BudgetsScenario, type Tenancy } from './budgets-plan';
import { DEFAULT_TENANTS_SCENARIO, TENANT_VARIANTS, type TenantsScenario, type TenantVariant } from './tenants-plan';
import {
  BENCH_STAGES,
  DEFAULT_WORKLOAD,
  workloadProblems,
  type BenchStage,
  type StageTimings,
  type Workload,
} from './workload';

export const USAGE = `usage: npm run bench -- [options]
  --scenario NAME        default | tenants (the noisy neighbour: tenant A's backlog, then tenant B)
                         | budgets (the same workload without tenants, counted, with a budget)
  --pipelines N          pipelines started at once (default 200; not with --scenario tenants)
  --tenancy LIST         budgets: comma list of none,count,budget (default all three, in that order)
  --rounds N             budgets: run the tenancies in turn N times (default 1)
  --tenant-a-pipelines N tenants: A's pipelines, started at once (default 1000)
  --tenant-b-pipelines N tenants: B's pipelines (default 10)
  --tenant-b-delay S     tenants: B starts S seconds after A (default 20)
  --variants LIST        tenants: comma list of priority,fairness,off (default all three)
  --callbacks MODE       on | off | both (default both: one run without, one with; tenants: on, budgets: off, not both)
  --stages LIST          comma list of review,assets,generation,erase (default all four)
  --assets K             asset items per pipeline (default 1)
  --fill-group N         create N assets in the bench group before the run (default 0: an empty group)
  --archive on|off       download generated and erased videos (default on)
  --workers 1|2          reelflow worker processes (default 1)
  --getasset-rate R      REELFLOW_GETASSET_RATE for the workers (default: the worker's own)
  --worker-env K=V       extra REELFLOW_* variable or NODE_OPTIONS for the workers, repeatable (tuning)
  --timings FILE         JSON of stage times in ms laid over the defaults, e.g. {"generationRunningMs": 10000}
  --temporal dev|cluster the dev server (default), or the real server on the local PostgreSQL (fresh databases)
  --shards N             history shards of --temporal cluster (default 4)
  --temporal-db file|memory  the dev server's SQLite: a file under .data/bench/<run>/ (default) or in memory
  --baseline on|off      also run the naive baseline (default on; not with --scenario tenants or budgets)
  --timeout SECONDS      per run (default 600 + N)
  --out DIR              report folder (default reports/)
  --cpu-prof             V8 CPU profiles of the workers and the baseline (summarized in the report)
  --keep                 keep .data/bench/<run>/ (logs, Temporal DB, archives, profiles)`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface BenchFlags {
  scenario: 'default' | 'tenants' | 'budgets';
  /** With --scenario tenants: its sizes and variants (pipelines is then A's plus B's). */
  tenants?: TenantsScenario;
  /** With --scenario budgets: which tenancies, how many rounds. */
  budgets?: BudgetsScenario;
  pipelines: number;
  modes: ('off' | 'on')[];
  workload: Workload;
  workers: 1 | 2;
  getAssetRate?: number;
  baseline: boolean;
  timeoutMs: number;
  outDir: string;
  keep: boolean;
  cpuProfile: boolean;
  /** Extra REELFLOW_* variables (and NODE_OPTIONS) for the worker processes. */
  workerEnv: Record<string, string>;
  /** Where the dev server keeps its SQLite database. */
  temporalDb: 'file' | 'memory';
  temporal: 'dev' | 'cluster';
  /** History shards of the cluster. */
  shards?: number;
}

const onOff = (flag: string, v: string): boolean => {
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new UsageError(`${flag}: on or off, got "${v}"`);
};

const wholeNumber = (flag: string, v: string, min: number, max: number): number => {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new UsageError(`${flag}: a whole number ${min}..${max}, got "${v}"`);
  return Number(v);
};

const OPTIONS = {
  scenario: { type: 'string', default: 'default' },
  pipelines: { type: 'string' },
  'tenant-a-pipelines': { type: 'string' },
  'tenant-b-pipelines': { type: 'string' },
  'tenant-b-delay': { type: 'string' },
  variants: { type: 'string' },
  tenancy: { type: 'string' },
  rounds: { type: 'string' },
  callbacks: { type: 'string' },
  stages: { type: 'string' },
  assets: { type: 'string', default: String(DEFAULT_WORKLOAD.assetsPerPipeline) },
  'fill-group': { type: 'string' },
  archive: { type: 'string', default: 'on' },
  workers: { type: 'string', default: '1' },
  'getasset-rate': { type: 'string' },
  timings: { type: 'string' },
  baseline: { type: 'string' },
  'temporal-db': { type: 'string', default: 'file' },
  temporal: { type: 'string', default: 'dev' },
  shards: { type: 'string' },
  timeout: { type: 'string' },
  out: { type: 'string', default: 'reports' },
  keep: { type: 'boolean', default: false },
  'cpu-prof': { type: 'boolean', default: false },
  'worker-env': { type: 'string', multiple: true },
} as const;

function flagValues(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function parseModes(callbacks: string): BenchFlags['modes'] {
  const modes: BenchFlags['modes'] =
    callbacks === 'both' ? ['off', 'on'] : callbacks === 'on' || callbacks === 'off' ? [callbacks] : [];
  if (modes.length === 0) throw new UsageError(`--callbacks: on, off or both, got "${callbacks}"`);
  return modes;
}

function parseStages(list: string | undefined): BenchStage[] {
  return parseList('--stages', list, BENCH_STAGES, DEFAULT_WORKLOAD.stages);
}

const TENANT_FLAGS = ['tenant-a-pipelines', 'tenant-b-pipelines', 'tenant-b-delay', 'variants'] as const;
const BUDGETS_FLAGS = ['tenancy', 'rounds'] as const;

/** A comma list of known names, kept in their known order. */
function parseList<T extends string>(flag: string, list: string | undefined, known: readonly T[], dflt: T[]): T[] {
  if (list === undefined) return dflt;
  const named = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = named.filter((v) => !(known as readonly string[]).includes(v));
  if (unknown.length) throw new UsageError(`${flag}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return known.filter((v) => named.includes(v));
}

type ScenarioFlags = Pick<BenchFlags, 'scenario' | 'tenants' | 'budgets' | 'pipelines' | 'modes' | 'baseline'>;

/** Refuses a flag given that belongs to another scenario, `owner`. */
function refuseOthers(values: ReturnType<typeof flagValues>, flags: readonly string[], owner: string) {
  const given = flags.find((f) => values[f as keyof typeof values] !== undefined);
  if (given) throw new UsageError(`--${given}: only with --scenario ${owner}`);
}

/** --scenario budgets: the tenancies and rounds, one callback mode, no baseline. */
function parseBudgets(values: ReturnType<typeof flagValues>): ScenarioFlags {
  refuseOthers(values, TENANT_FLAGS, 'tenants');
  if (values.baseline === 'on')
    throw new UsageError('--baseline: off with --scenario budgets (its ratios are to the run without tenants)');
  const budgets: BudgetsScenario = {
    tenancies: parseList<Tenancy>('--tenancy', values.tenancy, TENANCIES, DEFAULT_BUDGETS_SCENARIO.tenancies),
    rounds: wholeNumber('--rounds', values.rounds ?? String(DEFAULT_BUDGETS_SCENARIO.rounds), 1, 10),
  };
  if (budgets.tenancies.length === 0) throw new UsageError('--tenancy: at least one of none, count, budget');
  const modes = parseModes(values.callbacks ?? 'off');
  if (modes.length > 1) throw new UsageError('--callbacks: on or off with --scenario budgets, not both');
  return {
    scenario: 'budgets',
    budgets,
    pipelines: wholeNumber('--pipelines', values.pipelines ?? '200', 1, 10_000),
    modes,
    baseline: false,
  };
}

/** --scenario tenants: A's and B's sizes, the variants, one callback mode, no baseline. */
function parseTenants(values: ReturnType<typeof flagValues>): ScenarioFlags {
  refuseOthers(values, BUDGETS_FLAGS, 'budgets');
  if (values.pipelines !== undefined)
    throw new UsageError('--pipelines: not with --scenario tenants (--tenant-a-pipelines, --tenant-b-pipelines)');
  if (values.baseline !== undefined) throw new UsageError('--baseline: not with --scenario tenants (no baseline)');
  const d = DEFAULT_TENANTS_SCENARIO;
  const tenants: TenantsScenario = {
    aPipelines: wholeNumber('--tenant-a-pipelines', values['tenant-a-pipelines'] ?? String(d.aPipelines), 1, 10_000),
    bPipelines: wholeNumber('--tenant-b-pipelines', values['tenant-b-pipelines'] ?? String(d.bPipelines), 1, 1_000),
    bDelayMs: wholeNumber('--tenant-b-delay', values['tenant-b-delay'] ?? String(d.bDelayMs / 1000), 0, 3_600) * 1000,
    variants: parseList<TenantVariant>('--variants', values.variants, TENANT_VARIANTS, d.variants),
  };
  if (tenants.variants.length === 0) throw new UsageError('--variants: at least one of priority, fairness, off');
  const modes = parseModes(values.callbacks ?? 'on');
  if (modes.length > 1) throw new UsageError('--callbacks: on or off with --scenario tenants, not both');
  return { scenario: 'tenants', tenants, pipelines: tenants.aPipelines + tenants.bPipelines, modes, baseline: false };
}

/** --scenario and what depends on it: the pipeline count, the callback modes, the baseline. */
function parseScenario(values: ReturnType<typeof flagValues>): ScenarioFlags {
  const scenario = values.scenario;
  if (scenario === 'tenants') return parseTenants(values);
  if (scenario === 'budgets') return parseBudgets(values);
  if (scenario !== 'default') throw new UsageError(`--scenario: default, tenants or budgets, got "${scenario}"`);
  refuseOthers(values, TENANT_FLAGS, 'tenants');
  refuseOthers(values, BUDGETS_FLAGS, 'budgets');
  return {
    scenario,
    pipelines: wholeNumber('--pipelines', values.pipelines ?? '200', 1, 10_000),
    modes: parseModes(values.callbacks ?? 'both'),
    baseline: onOff('--baseline', values.baseline ?? 'on'),
  };
}

/** --timings FILE laid over the default stage times. */
function parseTimings(file: string | undefined, readFile: (f: string) => string): StageTimings {
  const timings = DEFAULT_WORKLOAD.timings;
  if (file === undefined) return timings;
  let given: unknown;
  try {
    given = JSON.parse(readFile(file));
  } catch (err) {
    throw new UsageError(`--timings ${file}: ${(err as Error).message}`);
  }
  if (!given || typeof given !== 'object' || Array.isArray(given))
    throw new UsageError(`--timings ${file}: a JSON object`);
  const unknown = Object.keys(given).filter((k) => !(k in timings));
  if (unknown.length)
    throw new UsageError(`--timings: unknown ${unknown.join(', ')} (known: ${Object.keys(timings).join(', ')})`);
  return { ...timings, ...(given as Partial<StageTimings>) };
}

function parseGetAssetRate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rate = Number(value);
  if (!(rate > 0 && rate <= GETASSET_MAX_PER_SECOND)) {
    throw new UsageError(`--getasset-rate: above 0, at most ${GETASSET_MAX_PER_SECOND} (the vendor limit)`);
  }
  return rate;
}

/** --worker-env K=V…: REELFLOW_* (never a credential: the bench sets those) or NODE_OPTIONS. */
function parseWorkerEnv(pairs: string[] | undefined): Record<string, string> {
  const workerEnv: Record<string, string> = {};
  for (const kv of pairs ?? []) {
    const m = /^(REELFLOW_[A-Z0-9_]+|NODE_OPTIONS)=(.*)$/.exec(kv);
    if (!m) throw new UsageError(`--worker-env: REELFLOW_NAME=value or NODE_OPTIONS=flags, got "${kv}"`);
    if (/SECRET|API_KEY|ACCESS_TOKEN/.test(m[1]))
      throw new UsageError(`--worker-env: ${m[1]} is set by the bench itself`);
    workerEnv[m[1]] = m[2]!;
  }
  return workerEnv;
}

/** --temporal, --temporal-db and --shards. */
function parseTemporal(values: ReturnType<typeof flagValues>): Pick<BenchFlags, 'temporal' | 'temporalDb' | 'shards'> {
  const temporalDb = values['temporal-db'];
  if (temporalDb !== 'file' && temporalDb !== 'memory')
    throw new UsageError(`--temporal-db: file or memory, got "${temporalDb}"`);
  const temporal = values.temporal;
  if (temporal !== 'dev' && temporal !== 'cluster')
    throw new UsageError(`--temporal: dev or cluster, got "${temporal}"`);
  if (values.shards !== undefined && temporal !== 'cluster')
    throw new UsageError('--shards: only with --temporal cluster');
  const shards = values.shards === undefined ? undefined : wholeNumber('--shards', values.shards, 1, 1024);
  return { temporalDb, temporal, ...(shards !== undefined ? { shards } : {}) };
}

export function parseBenchFlags(
  argv: string[],
  readFile: (f: string) => string = (f) => readFileSync(f, 'utf8'),
): BenchFlags {
  const values = flagValues(argv);
  const { scenario, tenants, budgets, pipelines, modes, baseline } = parseScenario(values);
  const stages = parseStages(values.stages);
  const timings = parseTimings(values.timings, readFile);
  const workload: Workload = {
    stages,
    assetsPerPipeline: wholeNumber('--assets', values.assets, 1, 20),
    archive: onOff('--archive', values.archive),
    timings,
    ...(values['fill-group'] !== undefined
      ? { fillGroup: wholeNumber('--fill-group', values['fill-group'], 0, 100_000) }
      : {}),
  };
  const problems = workloadProblems(workload);
  if (problems.length) throw new UsageError(problems.join('; '));

  const workers = wholeNumber('--workers', values.workers, 1, 2) as 1 | 2;
  const getAssetRate = parseGetAssetRate(values['getasset-rate']);
  const workerEnv = parseWorkerEnv(values['worker-env']);
  if ((tenants || budgets) && 'REELFLOW_TENANTS_FILE' in workerEnv)
    throw new UsageError(`--worker-env: REELFLOW_TENANTS_FILE is set by the bench with --scenario ${scenario}`);
  const { temporalDb, temporal, shards } = parseTemporal(values);
  const timeoutS =
    values.timeout === undefined ? 600 + pipelines : wholeNumber('--timeout', values.timeout, 10, 86_400);
  return {
    scenario,
    ...(tenants ? { tenants } : {}),
    ...(budgets ? { budgets } : {}),
    pipelines,
    modes,
    workload,
    workers,
    ...(getAssetRate !== undefined ? { getAssetRate } : {}),
    baseline,
    timeoutMs: timeoutS * 1000,
    outDir: values.out,
    keep: values.keep,
    cpuProfile: values['cpu-prof'],
    workerEnv,
    temporalDb,
    temporal,
    ...(shards !== undefined ? { shards } : {}),
  };
}
