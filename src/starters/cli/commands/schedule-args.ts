/**
 * What the `schedule` commands share: their arguments checked with usage errors that name
 * the option (exit 2), and the library's errors in the CLI's words.
 */
import { ScheduleNotFoundError } from '@temporalio/client';
import type { CommandContext } from '../output';
import { UsageError } from '../spec';
import { checkIdPart } from '../../client/pipeline-client';
import { parseEvery } from '../../client/schedules';

/** Runs a library check; its RangeError ("field: why") becomes a usage error naming `option`. */
export function checkOption(ctx: CommandContext, option: string, fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new UsageError(`${option}: ${err.message.replace(/^\w+: /, '')}`, option, ctx.name);
  }
}

/** <schedule-id>, --every and --id-prefix, checked before anything is sent. */
export function checkScheduleArgs(ctx: CommandContext): void {
  checkOption(ctx, '<schedule-id>', () => checkIdPart('scheduleId', ctx.positionals[0]));
  const every = ctx.str('every');
  if (every !== undefined) checkOption(ctx, '--every', () => parseEvery(every));
  const prefix = ctx.str('id-prefix');
  if (prefix !== undefined) checkOption(ctx, '--id-prefix', () => checkIdPart('workflowIdPrefix', prefix));
}

/**
 * The server's verdict on a cron expression or interval ("cron: Invalid schedule spec …")
 * as a usage error naming the option; a missing schedule in plain words.
 */
export function scheduleError(ctx: CommandContext, err: unknown): unknown {
  if (err instanceof RangeError && /^(cron|every): /.test(err.message)) {
    const option = `--${err.message.split(':')[0]}`;
    return new UsageError(`option ${option}: ${err.message.replace(/^\w+: /, '')}`, option, ctx.name);
  }
  if (err instanceof ScheduleNotFoundError) {
    return new Error(`no schedule "${ctx.positionals[0]}" in this namespace (reelflow schedule list)`);
  }
  return err;
}
