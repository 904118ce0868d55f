/**
 * `reelflow wait --batch <id> [--expect <n>] [--timeout <s>]`: polls visibility until
 * every pipeline of the batch has ended, then prints a summary and why the others
 * failed. Exit code: 0 all completed, 1 any failed or timed out (or --timeout passed),
 * 3 any cancelled or terminated.
 */
import { batchFailures, waitForBatch, type BatchState } from '../../client/batch-wait';
import { EXIT } from '../output';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';
import { checkIdPart } from '../../client/pipeline-client';
import { ProgressBar } from '../progress-bar';

const countsText = (s: BatchState) =>
  Object.entries(s.counts)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');

function exitCode(s: BatchState): number {
  if (!s.done || s.counts.failed || s.counts['timed-out']) return EXIT.failed;
  return s.counts.cancelled || s.counts.terminated ? EXIT.cancelled : EXIT.ok;
}

export const wait: CommandFn = async (ctx, session) => {
  const batchId = ctx.str('batch');
  if (batchId === undefined) throw new UsageError('"wait" needs --batch <id>', '--batch', ctx.name);
  try {
    checkIdPart('batch', batchId);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new UsageError(`option --batch: ${err.message.replace(/^\w+: /, '')}`, '--batch', ctx.name);
  }
  const client = await session.client();
  const bar = ProgressBar.on(ctx.io.stderr, `batch ${batchId}: ended`);
  let state: BatchState;
  try {
    state = await waitForBatch(client, batchId, {
      ...(ctx.int('expect') ? { expect: ctx.int('expect') } : {}),
      ...(ctx.int('timeout') ? { timeoutMs: ctx.int('timeout')! * 1_000 } : {}),
      ...(ctx.int('interval') ? { intervalMs: ctx.int('interval') } : {}),
      ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
      onPoll: (s) => bar?.update(s.closed, s.total, countsText(s)),
    });
  } catch (err) {
    bar?.finish();
    if (!ctx.io.signal?.aborted) throw err;
    ctx.io.stderr.write(`\nstopped waiting; batch ${batchId} keeps running (reelflow list --batch ${batchId})\n`);
    return EXIT.interrupted;
  }
  bar?.finish();
  const failures = await batchFailures(client, state.pipelines);
  const { pipelines, ...summary } = state;
  ctx.emit({ ...summary, failures, pipelines }, () => [
    `batch ${batchId}: ${state.total} pipeline(s)${state.total ? `: ${countsText(state)}` : ''}`,
    ...failures.map(
      (f) =>
        `  ${f.workflowId}  ${f.executionStatus}${f.stage ? ` at ${f.stage}` : ''}: ${f.messages.slice(-1)[0] ?? ''}`,
    ),
    ...(state.done ? [] : [`gave up waiting after --timeout: ${state.closed} of ${state.total} ended`]),
  ]);
  return exitCode(state);
};
