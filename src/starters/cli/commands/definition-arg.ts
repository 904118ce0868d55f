/**
 * The definition file a command names (`validate`, `start`, `run`): read and checked
 * against the payload limit of --max-payload-bytes, else $REELFLOW_MAX_PAYLOAD_BYTES,
 * else Temporal's default.
 */
import type { CommandContext } from '../output';
import { UsageError } from '../spec';
import { loadDefinitionFile } from '../../client/definition-file';
import { MAX_PAYLOAD_ENV, resolveMaxPayloadBytes } from '../../client/payload-size';

/** --max-payload-bytes, else $REELFLOW_MAX_PAYLOAD_BYTES, else Temporal's default. */
export function maxPayloadBytes(ctx: CommandContext): number {
  try {
    return resolveMaxPayloadBytes(ctx.int('max-payload-bytes'), ctx.io.env);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message, MAX_PAYLOAD_ENV, ctx.name);
    throw err;
  }
}

export async function loadDefinition(ctx: CommandContext, file = ctx.positionals[0]) {
  return loadDefinitionFile(file, {
    cwd: ctx.io.cwd,
    maxPayloadBytes: maxPayloadBytes(ctx),
    ...(ctx.io.stdin ? { stdin: ctx.io.stdin } : {}),
  });
}
