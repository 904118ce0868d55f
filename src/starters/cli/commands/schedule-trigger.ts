/**
 * `reelflow schedule trigger <schedule-id> [--overlap <policy>]`: one run now, paused or
 * not, under the schedule's own overlap policy unless --overlap says otherwise.
 */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { triggerPipelineSchedule, type OverlapPolicy } from '../../client/schedules';
import { checkScheduleArgs, scheduleError } from './schedule-args';

export const scheduleTrigger: CommandFn = async (ctx, session) => {
  checkScheduleArgs(ctx);
  const [scheduleId] = ctx.positionals;
  const overlap = ctx.str('overlap') as OverlapPolicy | undefined; // spec.ts checks the choice
  const client = await session.client();
  const r = await triggerPipelineSchedule(client, scheduleId, overlap ? { overlap } : {}).catch((err: unknown) => {
    throw scheduleError(ctx, err);
  });
  ctx.emit(r, () => [
    `triggered schedule ${scheduleId} (overlap ${r.overlap})`,
    `  its runs: reelflow list --query "TemporalScheduledById = '${scheduleId}'"`,
  ]);
  if (r.runningBefore.length && r.overlap === 'skip') {
    ctx.info(
      `note: ${r.runningBefore.join(', ')} still runs, so with overlap skip nothing starts; --overlap allow-all starts one anyway`,
    );
  }
  return EXIT.ok;
};
