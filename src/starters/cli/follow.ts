/**
 * A pipeline's course on the command line: the live display while it runs (`run`,
 * `status --follow`, the demo), its outcome as output and exit code, and whether it has
 * already ended (`cancel`, `resolve`).
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { PipelineStatus } from '../../contract/messages';
import { CommandContext, EXIT, type CliIo } from './output';
import { executionStatusName, failureChain, followPipeline, type PipelineOutcome } from '../client/pipeline-client';
import { ProgressDisplay, renderFailure, renderResult } from '../client/progress';

/** Exit code of an outcome: 0 completed, 1 failed/timed out, 3 cancelled/terminated. */
export function exitCodeOf(outcome: PipelineOutcome): number {
  if (outcome.status === 'completed') return EXIT.ok;
  return outcome.status === 'cancelled' || outcome.status === 'terminated' ? EXIT.cancelled : EXIT.failed;
}

/**
 * What an ended pipeline says, outermost first: reelflow's own message (PipelineFailedError's,
 * docs/failures.md), then the causes under it. The SDK's "Workflow execution failed" and the
 * top failure's own line, which that message repeats, are left out (docs/cli.md).
 */
export function outcomeMessages(outcome: Exclude<PipelineOutcome, { status: 'completed' }>): string[] {
  const top = outcome.error.cause.cause;
  return [outcome.error.message, ...(top ? failureChain(top).slice(1) : [])];
}

/** JSON form of an outcome (what `run --json` and `result --json` print); `chain` keeps every line. */
export function outcomeDocument(outcome: PipelineOutcome): Record<string, unknown> {
  if (outcome.status === 'completed')
    return { workflowId: outcome.workflowId, status: 'completed', result: outcome.result };
  return {
    workflowId: outcome.workflowId,
    status: outcome.status,
    error: { message: outcome.error.message, chain: outcome.messages },
  };
}

export function printOutcome(ctx: CommandContext, outcome: PipelineOutcome): number {
  ctx.emit(outcomeDocument(outcome), () =>
    outcome.status === 'completed'
      ? renderResult(outcome.result)
      : renderFailure(`pipeline ${outcome.workflowId} ${outcome.status}`, outcomeMessages(outcome)),
  );
  return exitCodeOf(outcome);
}

export interface FollowDisplayOptions {
  json: boolean;
  intervalMs?: number;
  /** For the "no worker?" hint. */
  taskQueue?: string;
  signal?: AbortSignal;
}

/**
 * Follows a pipeline with the live display of `run` (stdout): redrawn in place on a TTY,
 * one line per change otherwise; nothing with json. Resolves with the outcome.
 */
export async function followWithDisplay(
  client: Client,
  workflowId: string,
  io: Pick<CliIo, 'stdout'>,
  opts: FollowDisplayOptions,
): Promise<PipelineOutcome> {
  const display = opts.json ? undefined : new ProgressDisplay(io.stdout);
  let lastOk = Date.now();
  const queue = opts.taskQueue ? ` polling task queue "${opts.taskQueue}"` : '';
  try {
    return await followPipeline(client, workflowId, {
      ...(opts.intervalMs ? { intervalMs: opts.intervalMs } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      onAnswer: () => void (lastOk = Date.now()),
      onStatus: (s: PipelineStatus) => display?.update(s),
      onStatusError: () => {
        if (Date.now() - lastOk >= 3_000) {
          display?.note(`no answer to the status query yet: is a reelflow worker${queue} running?`);
        }
      },
    });
  } finally {
    display?.finish();
  }
}

/** Ctrl-C while following: the pipeline keeps running; say how to pick it up again. */
export function interrupted(ctx: CommandContext, workflowId: string): number {
  ctx.io.stderr.write(
    `\nstopped following; pipeline ${workflowId} keeps running (reelflow status ${workflowId} --follow)\n`,
  );
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify({ workflowId, status: 'running', detached: true }, null, 2)}\n`);
  return EXIT.interrupted;
}

/** The execution status of an existing workflow, or undefined when there is none. */
export async function closedStatus(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    const status = executionStatusName(d.status.name);
    return status === 'running' ? undefined : status;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}
