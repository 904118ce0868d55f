/** `reelflow list [--status …] [--stage …] [--vendor-task …] [--batch …] [--query …]`: pipelines from Temporal visibility, newest first. */
import { EXIT, table } from '../cli-output';
import { UsageError } from '../cli-spec';
import type { CommandFn } from '../cli-session';
import { listPipelines, type ListPipelinesOptions } from '../pipeline-client';

export const list: CommandFn = async (ctx, session) => {
  const status = ctx.str('status');
  const opts: ListPipelinesOptions = {
    ...(status ? { status: (status === 'canceled' ? 'cancelled' : status) as ListPipelinesOptions['status'] } : {}),
    ...(ctx.str('stage') ? { stage: ctx.str('stage') as ListPipelinesOptions['stage'] } : {}),
    ...(ctx.str('vendor-task') ? { vendorTaskId: ctx.str('vendor-task') } : {}),
    ...(ctx.str('query') ? { query: ctx.str('query') } : {}),
    ...(ctx.str('batch') !== undefined ? { batchId: ctx.str('batch') } : {}),
    // A batch is listed whole unless --limit says otherwise.
    limit: ctx.int('limit') ?? (ctx.str('batch') !== undefined ? Number.MAX_SAFE_INTEGER : 50),
  };
  let items;
  try {
    items = await listPipelines(await session.client(), opts);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message, `--${err.message.split(':')[0]}`, ctx.name);
    throw err;
  }
  ctx.emit({ pipelines: items }, () => [
    ...table(
      ['WORKFLOW ID', 'STATUS', 'STAGE', 'STARTED', 'VENDOR TASKS'],
      items.map((p) => [
        p.workflowId,
        p.executionStatus === 'running' && p.status ? p.status : p.executionStatus,
        p.stage,
        p.startTime,
        p.vendorTaskIds.join(','),
      ]),
    ),
    `${items.length} pipeline(s)`,
  ]);
  return EXIT.ok;
};
