/**
 * `reelflow rerun <pipeline-id> [--from <step>] [--id <new id>]`: a new pipeline with the
 * same definition that reuses the earlier one's finished outputs; prints its id.
 * `reelflow rerun --batch <id> [--from <step>] [--yes]`: the batch's failed pipelines, each
 * so (batch-rerun.ts); without --yes, listed only.
 */
import { EXIT, table, type CommandContext } from '../output';
import { UsageError } from '../spec';
import type { CommandFn, Session } from '../session';
import { ProgressBar } from '../progress-bar';
import { RerunRefusedError, rerunPipeline, type RerunFrom } from '../../client/rerun';
import { planBatchRerun, rerunBatch, type BatchRerunResult } from '../../client/batch-rerun';
import { checkIdPart } from '../../client/pipeline-client';
import { isRunId } from '../../../contract/run-chain';

function resultRow(r: BatchRerunResult): string[] {
  if (r.outcome === 'rerun') return [r.workflowId, `rerun from ${r.from}`, r.rerunId];
  if (r.outcome === 'already-rerun') return [r.workflowId, 'already rerun', r.rerunId];
  return [r.workflowId, 'failed', r.error];
}

function checkBatchOptions(ctx: CommandContext, batchId: string): void {
  if (ctx.positionals.length) {
    throw new UsageError(
      `"rerun --batch" takes no <workflow-id> (unexpected ${JSON.stringify(ctx.positionals[0])})`,
      '--batch',
      ctx.name,
    );
  }
  for (const option of ['id', 'task-queue', 'run-id']) {
    if (ctx.str(option) !== undefined) {
      throw new UsageError(
        `option --${option} does not go with --batch: each rerun is <id>-rerun<n> on its pipeline's task queue`,
        `--${option}`,
        ctx.name,
      );
    }
  }
  try {
    checkIdPart('batch', batchId);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new UsageError(`option --batch: ${err.message.replace(/^\w+: /, '')}`, '--batch', ctx.name);
  }
}

async function rerunBatchCommand(ctx: CommandContext, session: Session, batchId: string): Promise<number> {
  checkBatchOptions(ctx, batchId);
  const client = await session.client();
  const plan = await planBatchRerun(client, batchId);
  const from = ctx.str('from') as RerunFrom | undefined;
  const counts = `${plan.toRerun.length} failed pipeline(s) to rerun, ${plan.alreadyRerun.length} already rerun, of ${plan.total} in batch ${batchId}`;
  if (!ctx.bool('yes') || plan.toRerun.length === 0) {
    const doc = {
      batchId,
      total: plan.total,
      toRerun: plan.toRerun.map((p) => p.workflowId),
      alreadyRerun: plan.alreadyRerun,
    };
    ctx.emit({ ...doc, rerunStarted: false }, () => [
      ...plan.toRerun.map((p) => `  ${p.workflowId} (${p.executionStatus}${p.stage ? ` in ${p.stage}` : ''})`),
      counts,
      ...(plan.toRerun.length ? ['nothing started: add --yes to rerun them'] : []),
    ]);
    return EXIT.ok;
  }
  const bar = ctx.json ? undefined : ProgressBar.on(ctx.io.stderr, `rerun ${batchId}`);
  const results = await rerunBatch(client, plan, {
    ...(from !== undefined ? { from } : {}),
    onResult: (r, done, total) => {
      if (bar) bar.update(done, total);
      else if (r.outcome === 'rerun') ctx.info(`rerun ${done}/${total}: ${r.workflowId} → ${r.rerunId}`);
      else ctx.info(`rerun ${done}/${total}: ${r.workflowId} ${r.outcome}`);
    },
  });
  bar?.finish();
  const failed = results.filter((r) => r.outcome === 'failed');
  const rerun = results.filter((r) => r.outcome === 'rerun');
  ctx.emit({ batchId, total: plan.total, results, alreadyRerun: plan.alreadyRerun, rerunStarted: true }, () => [
    ...table(['PIPELINE', 'OUTCOME', 'RERUN ID / ERROR'], results.map(resultRow)).slice(1),
    `batch ${batchId}: ${rerun.length} rerun, ${results.length - rerun.length - failed.length + plan.alreadyRerun.length} already rerun, ${failed.length} failed`,
  ]);
  if (rerun.length) ctx.info(`wait for them: reelflow wait --batch ${batchId}`);
  return failed.length ? EXIT.failed : EXIT.ok;
}

export const rerun: CommandFn = async (ctx, session) => {
  const batchId = ctx.str('batch');
  if (batchId !== undefined) return rerunBatchCommand(ctx, session, batchId);
  if (ctx.bool('yes')) throw new UsageError('option --yes goes with --batch <id>', '--yes', ctx.name);
  const earlierId = ctx.positionals[0];
  if (earlierId === undefined) {
    throw new UsageError('"rerun" needs <workflow-id> (or --batch <id>)', '<workflow-id>', ctx.name);
  }
  const workflowId = ctx.str('id');
  if (workflowId !== undefined && !workflowId.trim()) {
    throw new UsageError('option --id: must not be blank', '--id', ctx.name);
  }
  const runId = ctx.str('run-id');
  if (runId !== undefined && !isRunId(runId)) {
    throw new UsageError(`option --run-id: a run id is a UUID, got ${JSON.stringify(runId)}`, '--run-id', ctx.name);
  }
  let started: Awaited<ReturnType<typeof rerunPipeline>>;
  try {
    started = await rerunPipeline(await session.client(), earlierId, {
      from: ctx.str('from') as RerunFrom | undefined,
      ...(workflowId !== undefined ? { workflowId } : {}),
      ...(ctx.str('task-queue') ? { taskQueue: ctx.str('task-queue') } : {}),
      ...(runId !== undefined ? { runId } : {}),
    });
  } catch (err) {
    // A step the definition does not have is a wrong --from, not a refusal of the pipeline.
    if (err instanceof RerunRefusedError && err.reason === 'not-defined') {
      throw new UsageError(`option --from: ${err.message.replace(/^from: /, '')}`, '--from', ctx.name);
    }
    throw err;
  }
  const { handle, from, reused } = started;
  const { fromRunId } = started.reuse;
  const adopts = started.adopts.map((t) => t.id);
  ctx.emit(
    {
      workflowId: handle.workflowId,
      runId: handle.firstExecutionRunId,
      rerunOf: earlierId,
      fromRunId,
      from,
      reused,
      adopts,
    },
    () => [handle.workflowId],
  );
  // A paid task the earlier run left running is polled by the rerun, never created again.
  const adopting = adopts.length ? `, adopting vendor task ${adopts.join(', ')}` : '';
  const chain =
    runId !== undefined && runId !== fromRunId
      ? ` (run ${fromRunId}, the last of the chain run ${runId} continued into)`
      : '';
  ctx.info(
    `rerun of ${earlierId}${chain} from ${from}, reusing ${reused.join(', ') || 'nothing'}${adopting}; follow it with: reelflow status ${handle.workflowId} --follow`,
  );
  return EXIT.ok;
};
