/** `reelflow result <workflow-id>`: waits for a pipeline to end and prints its result. */
import type { CommandFn } from '../session';
import { printOutcome } from '../follow';
import { followPipeline } from '../../client/pipeline-client';

export const result: CommandFn = async (ctx, session) => {
  const id = ctx.positionals[0];
  return printOutcome(
    ctx,
    await followPipeline(await session.client(), id, ctx.io.signal ? { signal: ctx.io.signal } : {}),
  );
};
