/** `reelflow schedule delete <schedule-id>`: no more runs; runs already started go on. */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { deletePipelineSchedule } from '../../client/schedules';
import { checkScheduleArgs, scheduleError } from './schedule-args';

export const scheduleDelete: CommandFn = async (ctx, session) => {
  checkScheduleArgs(ctx);
  const scheduleId = ctx.positionals[0];
  await deletePipelineSchedule(await session.client(), scheduleId).catch((err: unknown) => {
    throw scheduleError(ctx, err);
  });
  ctx.emit({ scheduleId, deleted: true }, () => [`deleted schedule ${scheduleId} (runs already started go on)`]);
  return EXIT.ok;
};
