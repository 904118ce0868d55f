/**
 * `reelflow rerun <pipeline-id> [--from <step>] [--id <new id>]`: a new pipeline with the
 * same definition that reuses the earlier one's finished outputs; prints its id.
 */
import { EXIT } from '../output';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';
import { RerunRefusedError, rerunPipeline, type RerunFrom } from '../../client/rerun';

export const rerun: CommandFn = async (ctx, session) => {
  const earlierId = ctx.positionals[0];
  const workflowId = ctx.str('id');
  if (workflowId !== undefined && !workflowId.trim()) {
    throw new UsageError('option --id: must not be blank', '--id', ctx.name);
  }
  let started: Awaited<ReturnType<typeof rerunPipeline>>;
  try {
    started = await rerunPipeline(await session.client(), earlierId, {
      from: ctx.str('from') as RerunFrom | undefined,
      ...(workflowId !== undefined ? { workflowId } : {}),
      ...(ctx.str('task-queue') ? { taskQueue: ctx.str('task-queue') } : {}),
    });
  } catch (err) {
    // A step the definition does not have is a wrong --from, not a refusal of the pipeline.
    if (err instanceof RerunRefusedError && err.reason === 'not-defined') {
      throw new UsageError(`option --from: ${err.message.replace(/^from: /, '')}`, '--from', ctx.name);
    }
    throw err;
  }
  const { handle, from, reused } = started;
  const adopts = started.adopts.map((t) => t.id);
  ctx.emit(
    { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, rerunOf: earlierId, from, reused, adopts },
    () => [handle.workflowId],
  );
  // A paid task the earlier run left running is polled by the rerun, never created again.
  const adopting = adopts.length ? `, adopting vendor task ${adopts.join(', ')}` : '';
  ctx.info(
    `rerun of ${earlierId} from ${from}, reusing ${reused.join(', ') || 'nothing'}${adopting}; follow it with: reelflow status ${handle.workflowId} --follow`,
  );
  return EXIT.ok;
};
