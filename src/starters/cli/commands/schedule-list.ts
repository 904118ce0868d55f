/** `reelflow schedule list`: the schedules that start pipelines, with their next and latest runs. */
import { EXIT, table } from '../output';
import type { CommandFn } from '../session';
import { listPipelineSchedules } from '../../client/schedules';

export const scheduleList: CommandFn = async (ctx, session) => {
  const schedules = await listPipelineSchedules(await session.client());
  ctx.emit({ schedules }, () => [
    ...table(
      ['SCHEDULE ID', 'SPEC', 'OVERLAP', 'NEXT RUN', 'LATEST RUN'],
      schedules.map((s) => [
        s.scheduleId + (s.paused ? ' (paused)' : ''),
        s.spec,
        s.overlap,
        s.nextRuns[0],
        s.recentRuns.slice(-1)[0]?.workflowId,
      ]),
    ),
    `${schedules.length} schedule(s)`,
  ]);
  return EXIT.ok;
};
