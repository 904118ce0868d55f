/**
 * Pipelines on a schedule, over Temporal Schedules: a cron expression or an interval,
 * one definition, an overlap policy. Each run is a normal videoPipeline, started by the
 * server with the same summary, details and search attributes as startPipeline's; its
 * workflow id is the schedule's prefix plus the scheduled time (Temporal appends it).
 * A schedule is then paused, unpaused, triggered or updated through its handle; each of
 * those first checks that the schedule starts pipelines (docs/cli.md, "Schedules").
 */
import type { Client, ScheduleDescription, ScheduleHandle } from '@temporalio/client';
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { parseDefinition, type PipelineDefinitionInput } from '../../definition/definition';
import { definitionOnTheWire, resolveMaxPayloadBytes } from './payload-size';
import { withTenantOptions, type TenantStartOptions } from './tenant-options';
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

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;

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

/** parseEvery, or NaN: for text read back from a memo. */
function everyMs(text: string): number {
  try {
    return parseEvery(text);
  } catch {
    return NaN;
  }
}

/** 300000 → "5m": the largest unit that divides it. */
function everyText(ms: number): string {
  const unit = Object.entries(UNIT_MS).find(([, size]) => ms % size === 0);
  return unit ? `${ms / unit[1]}${unit[0]}` : `${ms}ms`;
}

/** `tenant` / `priority` replace the definition's options in every run. */
export interface PipelineScheduleOptions extends TenantStartOptions {
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

function overlapPolicy(overlap: OverlapPolicy): ScheduleOverlapPolicy {
  if (!Object.hasOwn(OVERLAP, overlap)) {
    throw new RangeError(`overlap: one of ${OVERLAP_POLICIES.join(', ')} (got ${JSON.stringify(overlap)})`);
  }
  return OVERLAP[overlap];
}

/** The server's policy ("SKIP") as reelflow names it ("skip"). */
function overlapName(policy: ScheduleOverlapPolicy): OverlapPolicy | undefined {
  return OVERLAP_POLICIES.find((p) => OVERLAP[p] === policy);
}

/**
 * How the schedule was asked for ("cron 0 3 * * *", "every 5m"): the server keeps a cron
 * expression only as calendars. Written in the schedule's memo at create, which stays as it
 * is (an update cannot change a schedule's memo), and in the memo of the runs it starts
 * (RUN_MEMO), which updatePipelineSchedule rewrites with the action: the latest is read there.
 */
interface ReelflowScheduleMemo {
  spec: string;
  overlap: OverlapPolicy;
}
const RUN_MEMO = 'reelflowSchedule';

function scheduleSpec(opts: { cron?: string; every?: string }) {
  if ((opts.cron === undefined) === (opts.every === undefined)) {
    throw new RangeError('cron: give exactly one of cron and every');
  }
  if (opts.cron !== undefined) {
    if (!opts.cron.trim()) throw new RangeError('cron: must not be empty');
    return { spec: { cronExpressions: [opts.cron.trim()] }, text: `cron ${opts.cron.trim()}` };
  }
  return { spec: { intervals: [{ every: parseEvery(opts.every!) }] }, text: `every ${opts.every!.trim()}` };
}

/** The definition as each run gets it: checked for size, then validated (a DefinitionError names the fields). */
function prepareDefinition(definition: PipelineDefinitionInput, maxPayloadBytes: number | undefined) {
  const wire = definitionOnTheWire(definition, resolveMaxPayloadBytes(maxPayloadBytes));
  return { wire, def: parseDefinition(wire) };
}

/** What the schedule starts: a videoPipeline of that definition, with its schedule's settings in its memo. */
function pipelineAction(
  prepared: ReturnType<typeof prepareDefinition>,
  workflowId: string,
  taskQueue: string | undefined,
  memo: ReelflowScheduleMemo,
) {
  return {
    type: 'startWorkflow' as const,
    workflowType: PIPELINE_WORKFLOW_TYPE,
    workflowId,
    ...pipelineStartFields(prepared.wire, prepared.def, taskQueue !== undefined ? { taskQueue } : {}),
    memo: { [RUN_MEMO]: memo },
  };
}

/** The server checks the spec ("Invalid schedule spec: …"), which the SDK throws as a TypeError. */
function specError(err: unknown, opts: { cron?: string }): unknown {
  return err instanceof TypeError
    ? new RangeError(`${opts.cron !== undefined ? 'cron' : 'every'}: ${err.message}`)
    : err;
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
  const policy = overlapPolicy(overlap);
  const { spec, text } = scheduleSpec(opts);
  const prepared = prepareDefinition(withTenantOptions(definition, opts), opts.maxPayloadBytes);
  const memo: ReelflowScheduleMemo = { spec: text, overlap };
  try {
    return await client.schedule.create({
      scheduleId,
      spec,
      policies: { overlap: policy },
      memo: { reelflow: memo },
      action: pipelineAction(prepared, opts.workflowIdPrefix ?? scheduleId, opts.taskQueue, memo),
    });
  } catch (err) {
    throw specError(err, opts);
  }
}

export interface PipelineScheduleSummary {
  scheduleId: string;
  /** "cron 0 3 * * *" or "every 5m", as last set through reelflow ("every 30s", "calendar" when changed elsewhere). */
  spec: string;
  overlap?: OverlapPolicy;
  paused: boolean;
  note?: string;
  taskQueue: string;
  /** Each run's workflow id is this plus the scheduled time. */
  workflowIdPrefix: string;
  nextRuns: string[];
  /** The latest runs' workflow ids, oldest first. */
  recentRuns: { workflowId: string; scheduledAt: string }[];
  /** Runs started by the schedule that are still running. */
  running: string[];
}

/** The spec as it was asked for, unless the live spec no longer has its shape (changed elsewhere). */
function specText(d: ScheduleDescription): string {
  const asked = ((d.action.memo?.[RUN_MEMO] ?? d.memo?.reelflow) as Partial<ReelflowScheduleMemo> | undefined)?.spec;
  const intervals = d.spec.intervals ?? [];
  const calendars = d.spec.calendars ?? [];
  const live = [...intervals.map((i) => `every ${everyText(i.every)}`), ...(calendars.length ? ['calendar'] : [])];
  if (asked?.startsWith('cron ') && calendars.length > 0 && intervals.length === 0) return asked;
  if (asked?.startsWith('every ') && live.length === 1 && everyMs(asked.slice(6)) === intervals[0]?.every) return asked;
  return live.join(', ') || 'none';
}

function summarize(d: ScheduleDescription): PipelineScheduleSummary {
  const overlap = overlapName(d.policies.overlap);
  return {
    scheduleId: d.scheduleId,
    spec: specText(d),
    ...(overlap ? { overlap } : {}),
    paused: d.state.paused,
    ...(d.state.note ? { note: d.state.note } : {}),
    taskQueue: d.action.taskQueue,
    workflowIdPrefix: d.action.workflowId,
    nextRuns: d.info.nextActionTimes.map((t) => t.toISOString()),
    recentRuns: d.info.recentActions.map((a) => ({
      workflowId: a.action.workflow.workflowId,
      scheduledAt: a.scheduledAt.toISOString(),
    })),
    running: d.info.runningActions.map((a) => a.workflow.workflowId),
  };
}

/** The schedule's handle and description; ScheduleNotFoundError, or an Error when it starts something else. */
async function pipelineSchedule(client: Client, scheduleId: string) {
  const handle = client.schedule.getHandle(checkIdPart('scheduleId', scheduleId));
  const description = await handle.describe();
  if (description.action.workflowType !== PIPELINE_WORKFLOW_TYPE) {
    throw new Error(
      `schedule "${scheduleId}" starts ${description.action.workflowType} workflows, not reelflow pipelines: left as it is`,
    );
  }
  return { handle, description };
}

/** One pipeline schedule as it is now; ScheduleNotFoundError when there is none. */
export async function describePipelineSchedule(client: Client, scheduleId: string): Promise<PipelineScheduleSummary> {
  return summarize((await pipelineSchedule(client, scheduleId)).description);
}

/** The schedules that start pipelines (visibility: a new one may take a moment to be listed). */
export async function listPipelineSchedules(client: Client): Promise<PipelineScheduleSummary[]> {
  const ids: string[] = [];
  for await (const s of client.schedule.list()) {
    if (s.action?.workflowType === PIPELINE_WORKFLOW_TYPE) ids.push(s.scheduleId);
  }
  // The listing lacks the overlap policy and the runs' memo: each one is described, ten at a time.
  const describe = (id: string) =>
    client.schedule
      .getHandle(id)
      .describe()
      .catch((err: unknown) => {
        if (err instanceof ScheduleNotFoundError) return undefined; // deleted since it was listed
        throw err;
      });
  const described: (ScheduleDescription | undefined)[] = [];
  for (let i = 0; i < ids.length; i += 10) described.push(...(await Promise.all(ids.slice(i, i + 10).map(describe))));
  return described.filter((d) => d !== undefined).map(summarize);
}

/** Deletes the schedule (runs already started go on); ScheduleNotFoundError when there is none. */
export async function deletePipelineSchedule(client: Client, scheduleId: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).delete();
}

/** No more runs until unpaused (runs already started go on); the note says why (Temporal shows it). */
export async function pausePipelineSchedule(
  client: Client,
  scheduleId: string,
  note = 'paused with reelflow',
): Promise<PipelineScheduleSummary> {
  const { handle } = await pipelineSchedule(client, scheduleId);
  await handle.pause(note);
  return summarize(await handle.describe());
}

/** Runs again on its spec from now (the runs it missed while paused are not made up). */
export async function unpausePipelineSchedule(
  client: Client,
  scheduleId: string,
  note = 'unpaused with reelflow',
): Promise<PipelineScheduleSummary> {
  const { handle } = await pipelineSchedule(client, scheduleId);
  await handle.unpause(note);
  return summarize(await handle.describe());
}

export interface TriggerResult {
  scheduleId: string;
  /** The policy this run was started under. */
  overlap: OverlapPolicy;
  /** The schedule's runs that were still running when it was triggered. */
  runningBefore: string[];
}

/**
 * Starts a run now, paused or not. By default under the schedule's own overlap policy (the
 * SDK's default would be allow-all): with `skip` and a run still going, nothing starts.
 */
export async function triggerPipelineSchedule(
  client: Client,
  scheduleId: string,
  opts: { overlap?: OverlapPolicy } = {},
): Promise<TriggerResult> {
  const { handle, description } = await pipelineSchedule(client, scheduleId);
  const overlap = opts.overlap ?? overlapName(description.policies.overlap) ?? 'skip';
  await handle.trigger(overlapPolicy(overlap));
  return { scheduleId, overlap, runningBefore: description.info.runningActions.map((a) => a.workflow.workflowId) };
}

/** What `updatePipelineSchedule` changes; what is left out stays as it is. */
export interface PipelineScheduleChanges {
  /** The new definition of the runs (validated as at create). */
  definition?: PipelineDefinitionInput;
  /** At most one of cron and every: the new spec. */
  cron?: string;
  every?: string;
  overlap?: OverlapPolicy;
  taskQueue?: string;
  workflowIdPrefix?: string;
  maxPayloadBytes?: number;
}

/** Every change checked before the schedule is read: each error names its field. */
function checkChanges(changes: PipelineScheduleChanges) {
  const { definition, cron, every, overlap, taskQueue, workflowIdPrefix } = changes;
  if ([definition, cron, every, overlap, taskQueue, workflowIdPrefix].every((v) => v === undefined)) {
    throw new RangeError(
      'changes: nothing to update (definition, cron or every, overlap, taskQueue, workflowIdPrefix)',
    );
  }
  if (cron !== undefined && every !== undefined) throw new RangeError('cron: give at most one of cron and every');
  if (workflowIdPrefix !== undefined) checkIdPart('workflowIdPrefix', workflowIdPrefix);
  if (taskQueue !== undefined && !taskQueue.trim()) throw new RangeError('taskQueue: must not be empty');
  return {
    spec: cron !== undefined || every !== undefined ? scheduleSpec({ cron, every }) : undefined,
    policy: overlap !== undefined ? overlapPolicy(overlap) : undefined,
    prepared: definition !== undefined ? prepareDefinition(definition, changes.maxPayloadBytes) : undefined,
  };
}

/**
 * Changes a pipeline schedule in place: its spec, overlap policy, definition, task queue or
 * run id prefix; the rest (paused or not, its note, the runs already started) stays. Checked
 * as createPipelineSchedule checks (RangeError naming the field, DefinitionError); a schedule
 * that starts something else than pipelines is refused, and a missing one is ScheduleNotFoundError.
 */
export async function updatePipelineSchedule(
  client: Client,
  scheduleId: string,
  changes: PipelineScheduleChanges,
): Promise<PipelineScheduleSummary> {
  const { spec, policy, prepared } = checkChanges(changes);
  const { handle } = await pipelineSchedule(client, scheduleId);
  try {
    await handle.update((prev) => {
      if (prev.action.workflowType !== PIPELINE_WORKFLOW_TYPE) throw new Error(`schedule "${scheduleId}" changed type`);
      const overlap = policy ?? prev.policies.overlap;
      const memo: ReelflowScheduleMemo = {
        spec: spec?.text ?? specText(prev),
        overlap: overlapName(overlap) ?? 'skip',
      };
      const workflowId = changes.workflowIdPrefix ?? prev.action.workflowId;
      const taskQueue = changes.taskQueue ?? prev.action.taskQueue;
      return {
        spec: spec?.spec ?? prev.spec,
        policies: { ...prev.policies, overlap },
        state: prev.state,
        action: prepared
          ? pipelineAction(prepared, workflowId, taskQueue, memo)
          : { ...prev.action, workflowId, taskQueue, memo: { ...prev.action.memo, [RUN_MEMO]: memo } },
      };
    });
  } catch (err) {
    throw spec ? specError(err, changes) : err;
  }
  return summarize(await handle.describe());
}
