/**
 * Pipelines on a schedule, over Temporal Schedules: a cron expression or an interval,
 * one definition, an overlap policy. Each run is a normal videoPipeline, started by the
 * server with the same summary, details and search attributes as startPipeline's; its
 * workflow id is the schedule's prefix plus the scheduled time (Temporal appends it).
 */
import type { Client, ScheduleHandle, ScheduleSummary } from '@temporalio/client';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { parseDefinition, type PipelineDefinitionInput } from '../../definition/definition';
import { definitionOnTheWire, resolveMaxPayloadBytes } from './payload-size';
import { PIPELINE_WORKFLOW_TYPE, checkIdPart, pipelineStartFields } from './pipeline-client';

export const OVERLAP_POLICIES = [
  'skip',
  'buffer-one',
  'buffer-all',
  'cancel-other',
  'terminate-other',
  'allow-all',
] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** The server refuses intervals under a second (temporal server: "interval is too small"). */
export const MIN_INTERVAL_MS = 1_000;

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "30s", "5m", "2h", "1d" → milliseconds; whole seconds, at least one. */
export function parseEvery(text: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : NaN;
  if (!(ms >= MIN_INTERVAL_MS)) {
    throw new RangeError(
      `every: a duration of at least 1s such as "30s", "5m", "2h", "1d" (got ${JSON.stringify(text)})`,
    );
  }
  return ms;
}

export interface PipelineScheduleOptions {
  /** Also the first part of each run's workflow id, unless `workflowIdPrefix` says otherwise. */
  scheduleId: string;
  /** Exactly one of cron and every. Cron: 5 to 7 fields, or @daily, @hourly, … (checked by the server). */
  cron?: string;
  /** e.g. "30s", "5m", "1d" (at least 1s). */
  every?: string;
  /** What to do when a run is due while the previous one still runs (default skip). */
  overlap?: OverlapPolicy;
  taskQueue?: string;
  maxPayloadBytes?: number;
  workflowIdPrefix?: string;
}

const OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'terminate-other': ScheduleOverlapPolicy.TERMINATE_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
};

/** How the schedule was asked for, kept in its memo (the server turns cron text into calendars). */
interface ReelflowScheduleMemo {
  spec: string;
  overlap: OverlapPolicy;
}

function scheduleSpec(opts: PipelineScheduleOptions) {
  if ((opts.cron === undefined) === (opts.every === undefined)) {
    throw new RangeError('cron: give exactly one of cron and every');
  }
  if (opts.cron !== undefined) {
    if (!opts.cron.trim()) throw new RangeError('cron: must not be empty');
    return { spec: { cronExpressions: [opts.cron.trim()] }, text: `cron ${opts.cron.trim()}` };
  }
  return { spec: { intervals: [{ every: parseEvery(opts.every!) }] }, text: `every ${opts.every!.trim()}` };
}

/**
 * Creates a schedule that starts the definition as a pipeline. The definition is
 * validated first (a DefinitionError names the fields); a bad cron expression or interval
 * is a RangeError naming it ("cron: …"); an existing id rejects with ScheduleAlreadyRunning.
 */
export async function createPipelineSchedule(
  client: Client,
  definition: PipelineDefinitionInput, // typed at compile time; still validated here (raw JSON: validateDefinitionValue first)
  opts: PipelineScheduleOptions,
): Promise<ScheduleHandle> {
  const scheduleId = checkIdPart('scheduleId', opts.scheduleId);
  if (opts.workflowIdPrefix !== undefined) checkIdPart('workflowIdPrefix', opts.workflowIdPrefix);
  const overlap = opts.overlap ?? 'skip';
  if (!OVERLAP[overlap]) throw new RangeError(`overlap: one of ${OVERLAP_POLICIES.join(', ')}`);
  const { spec, text } = scheduleSpec(opts);
  const wire = definitionOnTheWire(definition, resolveMaxPayloadBytes(opts.maxPayloadBytes));
  const def = parseDefinition(wire);
  const memo: ReelflowScheduleMemo = { spec: text, overlap };
  try {
    return await client.schedule.create({
      scheduleId,
      spec,
      policies: { overlap: OVERLAP[overlap] },
      memo: { reelflow: memo },
      action: {
        type: 'startWorkflow',
        workflowType: PIPELINE_WORKFLOW_TYPE,
        workflowId: opts.workflowIdPrefix ?? scheduleId,
        ...pipelineStartFields(wire, def, opts.taskQueue !== undefined ? { taskQueue: opts.taskQueue } : {}),
      },
    });
  } catch (err) {
    // The server checks the spec ("Invalid schedule spec: …"), which the SDK throws as a TypeError.
    if (err instanceof TypeError) throw new RangeError(`${opts.cron !== undefined ? 'cron' : 'every'}: ${err.message}`);
    throw err;
  }
}

export interface PipelineScheduleSummary {
  scheduleId: string;
  /** "cron 0 3 * * *" or "every 5m", as created. */
  spec: string;
  overlap?: OverlapPolicy;
  paused: boolean;
  note?: string;
  nextRuns: string[];
  /** The latest runs' workflow ids, oldest first. */
  recentRuns: { workflowId: string; scheduledAt: string }[];
}

function summarize(s: ScheduleSummary): PipelineScheduleSummary {
  const memo = (s.memo?.reelflow ?? {}) as Partial<ReelflowScheduleMemo>;
  const intervals = s.spec?.intervals?.map((i) => `every ${i.every / 1000}s`) ?? [];
  return {
    scheduleId: s.scheduleId,
    spec: memo.spec ?? (intervals.join(', ') || 'calendar'),
    ...(memo.overlap ? { overlap: memo.overlap } : {}),
    paused: s.state.paused,
    ...(s.state.note ? { note: s.state.note } : {}),
    nextRuns: s.info.nextActionTimes.map((d) => d.toISOString()),
    recentRuns: s.info.recentActions.map((a) => ({
      workflowId: a.action.workflow.workflowId,
      scheduledAt: a.scheduledAt.toISOString(),
    })),
  };
}

/** The schedules that start pipelines (visibility: a new one may take a moment to be listed). */
export async function listPipelineSchedules(client: Client): Promise<PipelineScheduleSummary[]> {
  const out: PipelineScheduleSummary[] = [];
  for await (const s of client.schedule.list()) {
    if (s.action?.workflowType === PIPELINE_WORKFLOW_TYPE) out.push(summarize(s));
  }
  return out;
}

/** Deletes the schedule (runs already started go on); ScheduleNotFoundError when there is none. */
export async function deletePipelineSchedule(client: Client, scheduleId: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).delete();
}
