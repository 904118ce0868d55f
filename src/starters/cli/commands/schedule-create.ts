/**
 * `reelflow schedule create <schedule-id> <file> --cron <expr> | --every <duration>
 * [--overlap <policy>]`: validates the definition, then creates a Temporal Schedule whose
 * runs are normal pipelines (schedules.ts).
 */
import { ScheduleAlreadyRunning } from '@temporalio/client';
import { EXIT, type CommandContext } from '../output';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';
import { checkIdPart } from '../../client/pipeline-client';
import {
  createPipelineSchedule,
  parseEvery,
  type OverlapPolicy,
  type PipelineScheduleOptions,
} from '../../client/schedules';
import { loadDefinition, maxPayloadBytes, taskQueueOf } from './definition-arg';

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
  const check = (option: string, fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      throw new UsageError(`${option}: ${err.message.replace(/^\w+: /, '')}`, option, ctx.name);
    }
  };
  check('<schedule-id>', () => checkIdPart('scheduleId', scheduleId));
  if (every !== undefined) check('--every', () => parseEvery(every));
  const prefix = ctx.str('id-prefix');
  if (prefix !== undefined) check('--id-prefix', () => checkIdPart('workflowIdPrefix', prefix));
  return {
    scheduleId,
    ...(cron !== undefined ? { cron } : { every: every! }),
    overlap: (ctx.str('overlap') ?? 'skip') as OverlapPolicy,
    taskQueue: taskQueueOf(ctx),
    ...(prefix !== undefined ? { workflowIdPrefix: prefix } : {}),
    maxPayloadBytes: maxPayloadBytes(ctx),
  };
}

export const scheduleCreate: CommandFn = async (ctx, session) => {
  const opts = scheduleOptions(ctx);
  const loaded = await loadDefinition(ctx, ctx.positionals[1]);
  let handle;
  try {
    handle = await createPipelineSchedule(await session.client(), loaded.input, opts);
  } catch (err) {
    // The server checks cron expressions: "cron: Invalid schedule spec …".
    if (err instanceof RangeError && /^(cron|every): /.test(err.message)) {
      const option = `--${err.message.split(':')[0]}`;
      throw new UsageError(`option ${option}: ${err.message.replace(/^\w+: /, '')}`, option, ctx.name);
    }
    if (err instanceof ScheduleAlreadyRunning) {
      throw new Error(
        `schedule "${opts.scheduleId}" already exists; delete it first: reelflow schedule delete ${opts.scheduleId}`,
      );
    }
    throw err;
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
    definition: loaded.source,
    nextRuns,
  };
  ctx.emit(doc, () => [
    `created schedule ${doc.scheduleId}: ${spec}, overlap ${doc.overlap}, runs ${doc.workflowIdPrefix}-<time>`,
    ...(nextRuns.length ? [`  next run ${nextRuns[0]}`] : []),
  ]);
  return EXIT.ok;
};
