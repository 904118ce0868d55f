/**
 * `reelflow schedule update <schedule-id> [<file>] [--cron <expr> | --every <duration>]
 * [--overlap <policy>] [--task-queue <queue>] [--id-prefix <prefix>]`: changes a pipeline
 * schedule in place; the new definition is validated as `schedule create` validates it.
 */
import { EXIT, type CommandContext } from '../output';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';
import { updatePipelineSchedule, type OverlapPolicy, type PipelineScheduleChanges } from '../../client/schedules';
import { loadDefinition, maxPayloadBytes } from './definition-arg';
import { checkScheduleArgs, scheduleError } from './schedule-args';

const CHANGES = ['cron', 'every', 'overlap', 'task-queue', 'id-prefix'] as const;

/** The changes the options ask for (the definition aside); every usage error names its option. */
function changesOf(ctx: CommandContext): Omit<PipelineScheduleChanges, 'definition'> {
  checkScheduleArgs(ctx);
  const given = CHANGES.filter((o) => ctx.str(o) !== undefined);
  if (given.length === 0 && ctx.positionals[1] === undefined) {
    throw new UsageError(
      `"schedule update" needs something to change: <file>, --cron, --every, --overlap, --task-queue or --id-prefix`,
      '<file>',
      ctx.name,
    );
  }
  if (given.includes('cron') && given.includes('every')) {
    throw new UsageError('give one of --cron and --every, not both', '--every', ctx.name);
  }
  const cron = ctx.str('cron');
  const every = ctx.str('every');
  const overlap = ctx.str('overlap') as OverlapPolicy | undefined; // spec.ts checks the choice
  const taskQueue = ctx.str('task-queue');
  const prefix = ctx.str('id-prefix');
  return {
    ...(cron !== undefined ? { cron } : {}),
    ...(every !== undefined ? { every } : {}),
    ...(overlap !== undefined ? { overlap } : {}),
    ...(taskQueue !== undefined ? { taskQueue } : {}),
    ...(prefix !== undefined ? { workflowIdPrefix: prefix } : {}),
    maxPayloadBytes: maxPayloadBytes(ctx),
  };
}

export const scheduleUpdate: CommandFn = async (ctx, session) => {
  const changes = changesOf(ctx);
  const [scheduleId, file] = ctx.positionals;
  const loaded = file !== undefined ? await loadDefinition(ctx, file) : undefined;
  const client = await session.client();
  const s = await updatePipelineSchedule(client, scheduleId, {
    ...changes,
    ...(loaded ? { definition: loaded.input } : {}),
  }).catch((err: unknown) => {
    throw scheduleError(ctx, err);
  });
  const changed = [
    ...(loaded ? ['definition'] : []),
    ...(changes.cron !== undefined || changes.every !== undefined ? ['spec'] : []),
    ...(changes.overlap ? ['overlap'] : []),
    ...(changes.taskQueue !== undefined ? ['taskQueue'] : []),
    ...(changes.workflowIdPrefix !== undefined ? ['workflowIdPrefix'] : []),
  ];
  ctx.emit({ ...s, changed, ...(loaded ? { definition: loaded.source } : {}) }, () => [
    `updated schedule ${scheduleId} (${changed.join(', ')}): ${s.spec}, overlap ${s.overlap ?? '-'}, runs ${s.workflowIdPrefix}-<time> on ${s.taskQueue}${s.paused ? ', paused' : ''}`,
    ...(s.nextRuns.length && !s.paused ? [`  next run ${s.nextRuns[0]}`] : []),
  ]);
  return EXIT.ok;
};
