/**
 * The one stage table: every stage of a pipeline is declared here once, in order, and every
 * closed list of stages, task kinds and vendor interfaces is read from it (docs/architecture.md,
 * "How to add a stage"). A test refuses such a list written by hand anywhere else in src/
 * (test/layout/stage-table.test.ts). Plain data: the workflow bundle imports it.
 */
import {
  ASSET_PENDING_STATES,
  ERASE_STATES,
  ERASE_TERMINAL_STATES,
  GENERATION_STATES,
  GENERATION_TERMINAL_STATES,
  REVIEW_STATES,
  REVIEW_TERMINAL_STATES,
} from '../vendor-api/assumed-values';
import { ERASE_CURRENCY, ERASE_UNIT_PRICE } from '../vendor-api/documented-values';

/** States a task passes through on its way to a terminal one (a callback naming one is no news). */
function notTerminal(all: readonly string[], terminal: readonly string[]): readonly string[] {
  return all.filter((state) => !terminal.includes(state));
}

/** One kind of vendor task a stage creates. */
interface TaskRow {
  kind: string;
  /** States it passes through; absent for a task no poller waits on (an asset group). */
  passing?: readonly string[];
  /** A callback can offer its task id after an ambiguous create (docs/architecture.md, "Create without duplicates"). */
  offered?: true;
  /** The vendor's listed unit price, where it lists one; every kind is priced by a tenant's budget (docs/tenants.md). */
  listedPrice?: { unitPrice: number; currency: '¥' };
}

interface StageRow {
  name: string;
  /** The vendor interface its creates and queries use: one start-up check each (docs/doctor.md). */
  vendorInterface: string;
  /** How its tasks are made: batches of one task each, items, or one paid task (src/workflows/lib/single-task.ts). */
  shape: 'batches' | 'items' | 'single-task';
  tasks: readonly TaskRow[];
}

export const STAGE_TABLE = [
  {
    name: 'review',
    vendorInterface: 'review',
    shape: 'batches',
    tasks: [{ kind: 'review', passing: notTerminal(REVIEW_STATES, REVIEW_TERMINAL_STATES), offered: true }],
  },
  {
    name: 'assets',
    vendorInterface: 'assets',
    shape: 'items',
    tasks: [{ kind: 'assetGroup' }, { kind: 'asset', passing: ASSET_PENDING_STATES }],
  },
  {
    name: 'generation',
    vendorInterface: 'generation',
    shape: 'single-task',
    tasks: [{ kind: 'generation', passing: notTerminal(GENERATION_STATES, GENERATION_TERMINAL_STATES), offered: true }],
  },
  {
    name: 'erase',
    vendorInterface: 'erase',
    shape: 'single-task',
    tasks: [
      {
        kind: 'erase',
        passing: notTerminal(ERASE_STATES, ERASE_TERMINAL_STATES),
        offered: true,
        listedPrice: { unitPrice: ERASE_UNIT_PRICE, currency: ERASE_CURRENCY },
      },
    ],
  },
] as const satisfies readonly StageRow[];

type Row = (typeof STAGE_TABLE)[number];
type Task = Row['tasks'][number];

export type StageName = Row['name'];
export type VendorTaskKind = Task['kind'];
export type VendorInterfaceName = Row['vendorInterface'];
/** Kinds whose task id a callback may offer (docs/security.md, "Operator answers"). */
export type OfferedTaskKind = Extract<Task, { offered: true }>['kind'];
/** Kinds a poller waits on, with the states they pass through. */
export type PassingKind = Extract<Task, { passing: readonly string[] }>['kind'];
/** Kinds of the stages that create one paid task and poll it. */
export type SingleTaskKind = Extract<Row, { shape: 'single-task' }>['tasks'][number]['kind'];
export type ListedPriceKind = Extract<Task, { listedPrice: object }>['kind'];

const allTasks: readonly Task[] = STAGE_TABLE.flatMap((s): readonly Task[] => s.tasks);

/** Every stage, in the order a pipeline runs them. */
export const STAGES: readonly StageName[] = STAGE_TABLE.map((s) => s.name);
/** Every kind of vendor task, in stage order (a non-empty tuple, as zod's enum wants). */
export const TASK_KINDS = allTasks.map((t) => t.kind) as [VendorTaskKind, ...VendorTaskKind[]];
export const VENDOR_INTERFACES: readonly VendorInterfaceName[] = STAGE_TABLE.map((s) => s.vendorInterface);
export const OFFERED_KINDS = allTasks.filter((t) => 'offered' in t).map((t) => t.kind) as readonly OfferedTaskKind[];
/** The stages whose single paid task a rerun could create a second time (src/contract/reuse-rule.ts). */
export const SINGLE_TASK_STAGES: readonly StageName[] = STAGE_TABLE.filter((s) => s.shape === 'single-task').map(
  (s) => s.name,
);

/** States a task passes through on its way to a terminal one, by the kind of task. */
export const PASSING_STATES = Object.fromEntries(
  allTasks.flatMap((t) => ('passing' in t ? [[t.kind, t.passing]] : [])),
) as Readonly<Record<PassingKind, readonly string[]>>;

/** Which stage each kind of task belongs to (spend is reported by stage, then kind). */
export const STAGE_OF_KIND = Object.fromEntries(
  STAGE_TABLE.flatMap((s) => s.tasks.map((t) => [t.kind, s.name])),
) as Readonly<Record<VendorTaskKind, StageName>>;

/** The kinds of task a stage creates. */
export function kindsOf(stage: StageName): readonly VendorTaskKind[] {
  return STAGE_TABLE.find((s) => s.name === stage)!.tasks.map((t) => t.kind);
}

/** The vendor's listed price of a kind of task, where it lists one. */
const LISTED_PRICES = Object.fromEntries(
  allTasks.flatMap((t) => ('listedPrice' in t ? [[t.kind, t.listedPrice]] : [])),
) as Readonly<Record<ListedPriceKind, ListedPrice>>;

interface ListedPrice {
  unitPrice: number;
  currency: '¥';
}

/** What a pipeline's tasks of one kind cost at the vendor's listed price. */
export interface ListedCost {
  calls: number;
  unitPrice: number;
  currency: '¥';
  total: number;
}

/** The listed cost of each kind of task that has a listed price and at least one task. */
export function listedCosts(tasks: readonly { kind: VendorTaskKind }[]): Partial<Record<ListedPriceKind, ListedCost>> {
  const costs: Partial<Record<ListedPriceKind, ListedCost>> = {};
  for (const [kind, { unitPrice, currency }] of Object.entries(LISTED_PRICES) as [ListedPriceKind, ListedPrice][]) {
    const calls = tasks.filter((t) => t.kind === kind).length;
    if (calls > 0) costs[kind] = { calls, unitPrice, currency, total: +(calls * unitPrice).toFixed(9) };
  }
  return costs;
}

/**
 * Whether a definition runs a stage. Every stage is the definition's field of its name: an
 * object, or `true` (erase takes no settings); absent or `false` leaves the stage out.
 */
export function stageEnabled(def: Partial<Record<StageName, unknown>>, stage: StageName): boolean {
  const field = def[stage];
  return field !== undefined && field !== null && field !== false;
}
