/** `reelflow cancel <workflow-id> [--wait]`: requests cancellation; with --wait, follows it to the end. */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { closedStatus, exitCodeOf, outcomeDocument } from '../follow';
import { cancelPipeline, followPipeline } from '../../client/pipeline-client';

export const cancel: CommandFn = async (ctx, session) => {
  const id = ctx.positionals[0];
  const client = await session.client();
  const closed = await closedStatus(client, id);
  // The operator's goal (the pipeline no longer runs) already holds: say so, exit 0.
  if (closed) {
    ctx.emit({ workflowId: id, cancelRequested: false, status: closed }, () => [
      `pipeline ${id} already ${closed}: nothing to cancel`,
    ]);
    return EXIT.ok;
  }
  await cancelPipeline(client, id);
  if (!ctx.bool('wait')) {
    ctx.emit({ workflowId: id, cancelRequested: true }, () => [`cancellation requested for ${id}`]);
    return EXIT.ok;
  }
  const outcome = await followPipeline(client, id, ctx.io.signal ? { signal: ctx.io.signal } : {});
  ctx.emit({ workflowId: id, cancelRequested: true, ...outcomeDocument(outcome) }, () =>
    outcome.status === 'completed'
      ? [`${id} completed before the cancellation took effect`]
      : [`${id} ${outcome.status}`],
  );
  return outcome.status === 'cancelled' ? EXIT.ok : exitCodeOf(outcome);
};
