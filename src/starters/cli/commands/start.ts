/** `reelflow start <file>`: starts a pipeline and prints its workflow id (`--batch <file.jsonl>`: start-batch.ts). */
import { EXIT, type CommandContext } from '../output';
import { UsageError } from '../spec';
import type { CommandFn, Session } from '../session';
import { pipelineWorkflowId, startPipeline } from '../../client/pipeline-client';
import { loadDefinition, maxPayloadBytes, refuseWhatTheWorkerWould, taskQueueOf, tenancyOf } from './definition-arg';
import { startBatchFile } from './start-batch';

/** Starts the pipeline of the command's definition file (`start`, `run`). */
export async function startFromDefinition(ctx: CommandContext, session: Session) {
  const tenancy = tenancyOf(ctx);
  const loaded = await loadDefinition(ctx);
  refuseWhatTheWorkerWould(ctx, loaded, tenancy);
  const taskQueue = taskQueueOf(ctx);
  // The id first: a bad --id-prefix or --workflow-id is a usage error before anything connects.
  let workflowId = ctx.str('workflow-id');
  try {
    if (workflowId === undefined) workflowId = pipelineWorkflowId(loaded.definition, ctx.str('id-prefix'));
    else if (!workflowId.trim()) throw new RangeError('workflowId: must not be empty');
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const option = err.message.startsWith('namePrefix') ? '--id-prefix' : '--workflow-id';
    throw new UsageError(`option ${option}: ${err.message.replace(/^\w+: /, '')}`, option, ctx.name);
  }
  // Loaded, it is parsed and measured once: startPipeline takes it as it is.
  const handle = await startPipeline(await session.client(), loaded, {
    taskQueue,
    workflowId,
    maxPayloadBytes: maxPayloadBytes(ctx),
    ...tenancy,
  });
  return { handle, loaded, taskQueue };
}

/** The pipeline's page in the Web UI, when TEMPORAL_UI_URL says where that is. */
export function uiLink(env: NodeJS.ProcessEnv, namespace: string | undefined, workflowId: string): string | undefined {
  const ui = env.TEMPORAL_UI_URL?.replace(/\/+$/, '');
  return ui ? `${ui}/namespaces/${namespace ?? 'default'}/workflows/${encodeURIComponent(workflowId)}` : undefined;
}

/** A filtered list of the Web UI (its `query` parameter takes the visibility query as is). */
export function uiListLink(env: NodeJS.ProcessEnv, namespace: string | undefined, query: string): string | undefined {
  const ui = env.TEMPORAL_UI_URL?.replace(/\/+$/, '');
  return ui ? `${ui}/namespaces/${namespace ?? 'default'}/workflows?query=${encodeURIComponent(query)}` : undefined;
}

export const start: CommandFn = async (ctx, session) => {
  if (ctx.str('batch') !== undefined) return startBatchFile(ctx, session);
  if (ctx.str('batch-id') !== undefined) {
    throw new UsageError('option --batch-id goes with --batch <file.jsonl>', '--batch-id', ctx.name);
  }
  if (ctx.positionals.length === 0)
    throw new UsageError('"start" needs <file> (or --batch <file.jsonl>)', '<file>', ctx.name);
  const { handle, taskQueue } = await startFromDefinition(ctx, session);
  ctx.emit(
    { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, taskQueue, namespace: session.namespace },
    () => [handle.workflowId],
  );
  ctx.info(`started on task queue "${taskQueue}"; follow it with: reelflow status ${handle.workflowId} --follow`);
  const link = uiLink(ctx.io.env, session.namespace, handle.workflowId);
  if (link) ctx.info(`Web UI: ${link}`);
  return EXIT.ok;
};
