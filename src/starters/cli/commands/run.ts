/** `reelflow run <file>`: starts a pipeline and follows it live until it ends. */
import type { CommandFn } from '../session';
import { followWithDisplay, interrupted, printOutcome } from '../follow';
import { startFromDefinition, uiLink } from './start';

export const run: CommandFn = async (ctx, session) => {
  const { handle, taskQueue } = await startFromDefinition(ctx, session);
  ctx.info(`started ${handle.workflowId} on task queue "${taskQueue}"`);
  const link = uiLink(ctx.io.env, session.namespace, handle.workflowId);
  if (link) ctx.info(`Web UI: ${link}`);
  try {
    const outcome = await followWithDisplay(await session.client(), handle.workflowId, ctx.io, {
      json: ctx.json,
      taskQueue,
      ...(ctx.int('interval') ? { intervalMs: ctx.int('interval') } : {}),
      ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
    });
    return printOutcome(ctx, outcome);
  } catch (err) {
    if (ctx.io.signal?.aborted) return interrupted(ctx, handle.workflowId);
    throw err;
  }
};
