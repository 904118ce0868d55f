/**
 * `reelflow cancel <workflow-id> [--wait]`: requests cancellation; with --wait, follows it to the end.
 * `reelflow cancel --tenant T | --batch B | --query Q [--yes]`: counts the running pipelines
 * that match, and cancels them only with --yes (bulk-cancel.ts), with progress on stderr.
 */
import { EXIT, type CommandContext } from '../output';
import { UsageError } from '../spec';
import type { CommandFn, Session } from '../session';
import { closedStatus, exitCodeOf, outcomeDocument } from '../follow';
import { ProgressBar } from '../progress-bar';
import { cancelPipeline, followPipeline } from '../../client/pipeline-client';
import {
  cancelPipelines,
  countRunningPipelines,
  runningQuery,
  type BulkCancelProgress,
  type PipelineSelection,
} from '../../client/bulk-cancel';

const SELECTORS = ['tenant', 'batch', 'query'] as const;

/** The selection of a bulk cancel, its values checked (a usage error names the option). */
function selectionOf(ctx: CommandContext): PipelineSelection {
  const selection: PipelineSelection = {
    ...(ctx.str('tenant') !== undefined ? { tenant: ctx.str('tenant') } : {}),
    ...(ctx.str('batch') !== undefined ? { batchId: ctx.str('batch') } : {}),
    ...(ctx.str('query') !== undefined ? { query: ctx.str('query') } : {}),
    ...(ctx.str('task-queue') !== undefined ? { taskQueue: ctx.str('task-queue') } : {}),
  };
  if (ctx.bool('wait')) {
    throw new UsageError('option --wait goes with one <workflow-id>', '--wait', ctx.name);
  }
  try {
    runningQuery(selection);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const field = err.message.split(':')[0];
    const option = field === 'batch' ? '--batch' : field === 'taskQueue' ? '--task-queue' : `--${field}`;
    throw new UsageError(`option ${option}: ${err.message.replace(/^\w+: /, '')}`, option, ctx.name);
  }
  return selection;
}

/** "--tenant acme --batch b1": what the operator selected, for the counts and the history's reason. */
function selectionText(ctx: CommandContext): string {
  return [...SELECTORS, 'task-queue' as const]
    .filter((o) => ctx.str(o) !== undefined)
    .map((o) => `--${o} ${JSON.stringify(ctx.str(o))}`)
    .join(' ');
}

/** A progress line on stderr: a bar on a TTY, else a line each time the count moves. */
function progressReporter(ctx: CommandContext): { update: (p: BulkCancelProgress) => void; finish: () => void } {
  const bar = ctx.json ? undefined : ProgressBar.on(ctx.io.stderr, 'cancel');
  let last = '';
  return {
    update: (p) => {
      const note = `${p.done} cancelled · ${p.failed} failed`;
      if (bar) return bar.update(p.done + p.failed, p.total, note);
      const line = `cancel: ${p.done + p.failed}/${p.total || '?'} (${note})`;
      if (line !== last) ctx.info(line);
      last = line;
    },
    finish: () => bar?.finish(),
  };
}

async function bulkCancel(ctx: CommandContext, session: Session): Promise<number> {
  const selection = selectionOf(ctx);
  const client = await session.client();
  const query = runningQuery(selection);
  const matching = await countRunningPipelines(client, selection);
  const what = selectionText(ctx);
  if (!ctx.bool('yes') || matching === 0) {
    ctx.emit({ query, matching, cancelRequested: false }, () => [
      `${matching} running pipeline(s) match ${what}`,
      ...(matching ? [`nothing cancelled: add --yes to cancel them`] : []),
    ]);
    return EXIT.ok;
  }
  ctx.info(`${matching} running pipeline(s) match ${what}: cancelling them`);
  const progress = progressReporter(ctx);
  const report = await cancelPipelines(client, selection, {
    reason: `reelflow cancel ${what}`,
    onProgress: progress.update,
    ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
  });
  progress.finish();
  if (report.fallback) ctx.info(`no batch operation (${report.fallback}): cancelled each pipeline by its handle`);
  ctx.emit({ ...report, matching, cancelRequested: true }, () => [
    `${report.done} of ${report.total} cancellation(s) requested, ${report.failed} failed${report.jobId ? ` (batch operation ${report.jobId})` : ''}`,
    ...report.failures.map((f) => `  ${f.workflowId}: ${f.error}`),
  ]);
  return report.failed ? EXIT.failed : EXIT.ok;
}

export const cancel: CommandFn = async (ctx, session) => {
  const selectors = [...SELECTORS, 'task-queue'].filter((o) => ctx.str(o) !== undefined);
  if (ctx.positionals.length === 0) {
    if (!SELECTORS.some((o) => ctx.str(o) !== undefined)) {
      throw new UsageError('"cancel" needs <workflow-id>, or --tenant, --batch or --query', '<workflow-id>', ctx.name);
    }
    return bulkCancel(ctx, session);
  }
  const extra = selectors[0] ?? (ctx.bool('yes') ? 'yes' : undefined);
  if (extra !== undefined) {
    throw new UsageError(`option --${extra} does not go with a <workflow-id>`, `--${extra}`, ctx.name);
  }
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
