/** `reelflow schedule unpause <schedule-id> [--note <text>]`: runs on its spec again from now. */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { unpausePipelineSchedule } from '../../client/schedules';
import { checkScheduleArgs, scheduleError } from './schedule-args';

export const scheduleUnpause: CommandFn = async (ctx, session) => {
  checkScheduleArgs(ctx);
  const [scheduleId] = ctx.positionals;
  const s = await unpausePipelineSchedule(await session.client(), scheduleId, ctx.str('note')).catch((err: unknown) => {
    throw scheduleError(ctx, err);
  });
  ctx.emit(s, () => [
    `unpaused schedule ${scheduleId}: ${s.spec}, overlap ${s.overlap ?? '-'}`,
    ...(s.nextRuns.length ? [`  next run ${s.nextRuns[0]}`] : []),
  ]);
  return EXIT.ok;
};
