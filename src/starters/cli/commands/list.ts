/** `reelflow list [--status …] [--stage …] [--vendor-task …] [--batch …] [--query …]`: pipelines from Temporal visibility, newest first. */
import { EXIT, table } from '../output';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';
import { buildListQuery, listPipelines, type ListPipelinesOptions } from '../../client/pipeline-client';
import { uiListLink } from './start';

/** `--waiting` is `--status waiting-operator`; with another --status it is a contradiction. */
function statusOption(status: string | undefined, waiting: boolean, command: string): string | undefined {
  if (!waiting) return status;
  if (status !== undefined && status !== 'waiting-operator') {
    throw new UsageError(
      `option --waiting is --status waiting-operator; it cannot go with --status ${status}`,
      '--waiting',
      command,
    );
  }
  return 'waiting-operator';
}

/** The VENDOR TASKS column's width: a pipeline with many tasks keeps the table one line per pipeline. */
export const VENDOR_TASKS_WIDTH = 60;

/**
 * The ids that fit in `width`, whole, then `… (+N more)` for the rest (`--json` and
 * `reelflow status` give them all, docs/cli.md). An id longer than the width alone is cut.
 */
export function vendorTasksCell(ids: readonly string[], width = VENDOR_TASKS_WIDTH): string {
  const shown: string[] = [];
  for (const id of ids) {
    const rest = ids.length - shown.length - 1;
    const tail = rest > 0 ? `,… (+${rest} more)`.length : 0;
    if ([...shown, id].join(',').length + tail > width) break;
    shown.push(id);
  }
  const more = ids.length - shown.length;
  if (more === 0) return shown.join(',');
  if (shown.length === 0) return `${ids[0].slice(0, width - 1)}…${more > 1 ? ` (+${more - 1} more)` : ''}`;
  return `${shown.join(',')},… (+${more} more)`;
}

export const list: CommandFn = async (ctx, session) => {
  const status = statusOption(ctx.str('status'), ctx.bool('waiting'), ctx.name);
  const opts: ListPipelinesOptions = {
    ...(status ? { status: (status === 'canceled' ? 'cancelled' : status) as ListPipelinesOptions['status'] } : {}),
    ...(ctx.str('stage') ? { stage: ctx.str('stage') as ListPipelinesOptions['stage'] } : {}),
    ...(ctx.str('vendor-task') ? { vendorTaskId: ctx.str('vendor-task') } : {}),
    ...(ctx.str('query') ? { query: ctx.str('query') } : {}),
    ...(ctx.str('batch') !== undefined ? { batchId: ctx.str('batch') } : {}),
    ...(ctx.str('tenant') !== undefined ? { tenant: ctx.str('tenant') } : {}),
    ...(ctx.str('task-queue') !== undefined ? { taskQueue: ctx.str('task-queue') } : {}),
    // A batch is listed whole unless --limit says otherwise.
    limit: ctx.int('limit') ?? (ctx.str('batch') !== undefined ? Number.MAX_SAFE_INTEGER : 50),
  };
  let items;
  let query: string;
  try {
    query = buildListQuery(opts);
    items = await listPipelines(await session.client(), opts);
  } catch (err) {
    if (err instanceof RangeError) {
      const option = `--${err.message.split(':')[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      throw new UsageError(`option ${option}: ${err.message.replace(/^\w+: /, '')}`, option, ctx.name);
    }
    throw err;
  }
  // A TENANT column once any listed pipeline has one (docs/tenants.md).
  const tenants = items.some((p) => p.tenant !== undefined);
  ctx.emit({ pipelines: items }, () => [
    ...table(
      ['WORKFLOW ID', 'STATUS', 'STAGE', ...(tenants ? ['TENANT'] : []), 'STARTED', 'VENDOR TASKS'],
      items.map((p) => [
        p.workflowId,
        p.executionStatus === 'running' && p.status ? p.status : p.executionStatus,
        p.stage,
        ...(tenants ? [p.tenant] : []),
        p.startTime,
        vendorTasksCell(p.vendorTaskIds),
      ]),
    ),
    `${items.length} pipeline(s)`,
  ]);
  // The same list in the Web UI, where an operator opens each pipeline (and resolves it).
  const link = uiListLink(ctx.io.env, session.namespace, query);
  if (link) ctx.info(`Web UI: ${link}`);
  else if (ctx.bool('waiting')) ctx.info('Web UI link of this list: set TEMPORAL_UI_URL (e.g. http://localhost:8233)');
  return EXIT.ok;
};
