/** `reelflow schedule delete <schedule-id>`: no more runs; runs already started go on. */
import { ScheduleNotFoundError } from '@temporalio/client';
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { deletePipelineSchedule } from '../../client/schedules';

export const scheduleDelete: CommandFn = async (ctx, session) => {
  const scheduleId = ctx.positionals[0];
  try {
    await deletePipelineSchedule(await session.client(), scheduleId);
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw new Error(`no schedule "${scheduleId}" in this namespace`);
    throw err;
  }
  ctx.emit({ scheduleId, deleted: true }, () => [`deleted schedule ${scheduleId} (runs already started go on)`]);
  return EXIT.ok;
};
