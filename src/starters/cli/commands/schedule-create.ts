/**
 * `reelflow schedule create <schedule-id> <file> --cron <expr> | --every <duration>
 * [--overlap <policy>]`: validates the definition, then creates a Temporal Schedule whose
 * runs are normal pipelines (schedules.ts).
 */
import { ScheduleAlreadyRunning } from '@temporalio/client';
import { EXIT, type CommandContext } from '../output';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';
import { createPipelineSchedule, type OverlapPolicy, type PipelineScheduleOptions } from '../../client/schedules';
import { loadDefinition, maxPayloadBytes, taskQueueOf, tenancyOf } from './definition-arg';
import { checkScheduleArgs, scheduleError } from './schedule-args';

/** The options as schedules.ts takes them; every usage error names its option. */
function scheduleOptions(ctx: CommandContext): PipelineScheduleOptions {
  const [scheduleId] = ctx.positionals;
  const cron = ctx.str('cron');
  const every = ctx.str('every');
  if (cron !== undefined && every !== undefined) {
    throw new UsageError('give one of --cron and --every, not both', '--every', ctx.name);
  }
  if (cron === undefined && every === undefined) {
    throw new UsageError('"schedule create" needs --cron <expr> or --every <duration>', '--cron', ctx.name);
  }
  checkScheduleArgs(ctx);
  const prefix = ctx.str('id-prefix');
  return {
    scheduleId,
    ...(cron !== undefined ? { cron } : { every: every! }),
    overlap: (ctx.str('overlap') ?? 'skip') as OverlapPolicy,
    taskQueue: taskQueueOf(ctx),
    ...(prefix !== undefined ? { workflowIdPrefix: prefix } : {}),
    maxPayloadBytes: maxPayloadBytes(ctx),
    ...tenancyOf(ctx),
  };
}

export const scheduleCreate: CommandFn = async (ctx, session) => {
  const opts = scheduleOptions(ctx);
  const loaded = await loadDefinition(ctx, ctx.positionals[1]);
  let handle;
  try {
    handle = await createPipelineSchedule(await session.client(), loaded.input, opts);
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) {
      throw new Error(
        `schedule "${opts.scheduleId}" already exists: reelflow schedule update ${opts.scheduleId} changes it`,
      );
    }
    throw scheduleError(ctx, err);
  }
  const d = await handle.describe();
  const nextRuns = d.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString());
  const spec = opts.cron !== undefined ? `cron ${opts.cron}` : `every ${opts.every}`;
  const doc = {
    scheduleId: handle.scheduleId,
    spec,
    overlap: opts.overlap,
    workflowIdPrefix: opts.workflowIdPrefix ?? opts.scheduleId,
    taskQueue: d.action.taskQueue,
    ...(opts.tenant !== undefined ? { tenant: opts.tenant } : {}),
    ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    definition: loaded.source,
    nextRuns,
  };
  ctx.emit(doc, () => [
    `created schedule ${doc.scheduleId}: ${spec}, overlap ${doc.overlap}, runs ${doc.workflowIdPrefix}-<time>`,
    ...(nextRuns.length ? [`  next run ${nextRuns[0]}`] : []),
  ]);
  return EXIT.ok;
};
