/**
 * `reelflow resolve <workflow-id> --task-id <id> | --resubmit | --abandon [--step <step>]`:
 * the operator's answer to a pipeline waiting after an ambiguous create (the
 * `resolveCreate` Update).
 */
import { WorkflowNotFoundError } from '@temporalio/common';
import type { CreateDecision } from '../../../contract/messages';
import { EXIT } from '../output';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';
import { closedStatus } from '../follow';
import { resolveCreate } from '../../client/pipeline-client';

export const resolve: CommandFn = async (ctx, session) => {
  const id = ctx.positionals[0];
  const taskId = ctx.str('task-id');
  const given = [
    taskId !== undefined && '--task-id',
    ctx.bool('resubmit') && '--resubmit',
    ctx.bool('abandon') && '--abandon',
  ].filter((x): x is string => !!x);
  if (given.length !== 1) {
    throw new UsageError(
      given.length === 0
        ? '"resolve" needs one of --task-id <id>, --resubmit, --abandon'
        : `"resolve" takes only one of ${given.join(', ')}`,
      given[1] ?? '--task-id',
      ctx.name,
    );
  }
  const decision: CreateDecision =
    taskId !== undefined ? { taskId } : ctx.bool('resubmit') ? { resubmit: true } : { abandon: true };
  const step = ctx.str('step');
  const client = await session.client();
  let res;
  try {
    res = await resolveCreate(client, id, decision, step ? { step } : {});
  } catch (err) {
    // An Update to a closed workflow reports "not found": say what it is instead.
    const closed = err instanceof WorkflowNotFoundError ? await closedStatus(client, id) : undefined;
    if (closed) throw new Error(`pipeline ${id} already ${closed}: nothing waits for a decision`);
    throw err;
  }
  ctx.emit({ workflowId: id, ...res }, () => [
    `${id}: ${res.stage} step ${res.step} accepted ${JSON.stringify(res.accepted)}`,
  ]);
  return EXIT.ok;
};
