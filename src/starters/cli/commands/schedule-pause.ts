/** `reelflow schedule pause <schedule-id> [--note <text>]`: no run starts until unpaused. */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { pausePipelineSchedule } from '../../client/schedules';
import { checkScheduleArgs, scheduleError } from './schedule-args';

export const schedulePause: CommandFn = async (ctx, session) => {
  checkScheduleArgs(ctx);
  const [scheduleId] = ctx.positionals;
  const s = await pausePipelineSchedule(await session.client(), scheduleId, ctx.str('note')).catch((err: unknown) => {
    throw scheduleError(ctx, err);
  });
  ctx.emit(s, () => [
    `paused schedule ${scheduleId}${s.note ? ` (${s.note})` : ''}: runs already started go on`,
    `  resume: reelflow schedule unpause ${scheduleId}`,
  ]);
  return EXIT.ok;
};
