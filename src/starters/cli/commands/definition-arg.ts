/**
 * The definition file a command names (`validate`, `start`, `run`): read and checked
 * against the payload limit of --max-payload-bytes, else $REELFLOW_MAX_PAYLOAD_BYTES,
 * else Temporal's default. And the task queue a started pipeline goes to.
 */
import { DEFAULT_TASK_QUEUE } from '../../../contract/messages';
import type { CommandContext } from '../output';
import { UsageError } from '../spec';
import { DefinitionFileError, loadDefinitionFile, type LoadedDefinition } from '../../client/definition-file';
import { workerVerdict } from '../../client/worker-checks';
import { MAX_PAYLOAD_ENV, resolveMaxPayloadBytes } from '../../client/payload-size';
import { checkTenantOptions, type TenantStartOptions } from '../../client/tenant-options';
import type { PriorityLevel } from '../../../definition/schema';

/** --max-payload-bytes, else $REELFLOW_MAX_PAYLOAD_BYTES, else Temporal's default. */
export function maxPayloadBytes(ctx: CommandContext): number {
  try {
    return resolveMaxPayloadBytes(ctx.int('max-payload-bytes'), ctx.io.env);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message, MAX_PAYLOAD_ENV, ctx.name);
    throw err;
  }
}

/**
 * --task-queue, else $REELFLOW_TASK_QUEUE (the variable the worker and `reelflow doctor`
 * read, so one `export` points all three at the same queue: README "Use your own vendor
 * account"), else "reelflow".
 */
export function taskQueueOf(ctx: CommandContext): string {
  return ctx.str('task-queue') ?? (ctx.io.env.REELFLOW_TASK_QUEUE?.trim() || DEFAULT_TASK_QUEUE);
}

export async function loadDefinition(ctx: CommandContext, file = ctx.positionals[0]) {
  return loadDefinitionFile(file, {
    cwd: ctx.io.cwd,
    maxPayloadBytes: maxPayloadBytes(ctx),
    ...(ctx.io.stdin ? { stdin: ctx.io.stdin } : {}),
  });
}

/** --tenant and --priority, checked as the definition's options.tenant / options.priority are. */
export function tenancyOf(ctx: CommandContext): TenantStartOptions {
  const tenant = ctx.str('tenant');
  const priority = ctx.str('priority') as PriorityLevel | undefined;
  const opts = { ...(tenant !== undefined ? { tenant } : {}), ...(priority !== undefined ? { priority } : {}) };
  try {
    checkTenantOptions(opts);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const option = `--${err.message.split(':')[0]}`;
    throw new UsageError(`option ${option}: ${err.message.replace(/^\w+: /, '')}`, option, ctx.name);
  }
  return opts;
}

/**
 * Refuses, before anything connects, what the worker would refuse where this environment
 * holds its variables (docs/cli.md, "What the worker checks"): exit 2, naming the field, or
 * the flag (--tenant) that set it. Returns the notes on what only the worker can judge.
 */
export function refuseWhatTheWorkerWould(
  ctx: CommandContext,
  loaded: LoadedDefinition,
  tenancy: TenantStartOptions = {},
): string[] {
  const def = loaded.definition;
  const { issues, notes } = workerVerdict({ ...def, options: { ...def.options, ...tenancy } }, ctx.io.env);
  const flagged = tenancy.tenant !== undefined ? issues.find((i) => i.path === 'options.tenant') : undefined;
  if (flagged) throw new UsageError(`option --tenant: ${flagged.message}`, '--tenant', ctx.name);
  if (issues.length > 0) {
    const message = `${loaded.source}: the worker would refuse it (${issues.map((i) => `${i.path}: ${i.message}`).join('; ')})`;
    throw new DefinitionFileError('definition', loaded.source, message, { issues });
  }
  return notes;
}
