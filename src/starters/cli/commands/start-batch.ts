/**
 * `reelflow start --batch <file.jsonl> [--batch-id <id>]`: one pipeline per line (batch.ts).
 * A progress bar on stderr when it is a TTY; one line per definition line on stdout, or
 * one JSON document with --json. Exit code 1 when any line failed (the others started).
 */
import { startBatch, batchLines, defaultBatchId, type BatchLineResult } from '../../client/batch';
import { EXIT, table, type CommandContext } from '../output';
import { UsageError } from '../spec';
import type { Session } from '../session';
import { readDefinitionText } from '../../client/definition-file';
import { checkIdPart } from '../../client/pipeline-client';
import { ProgressBar } from '../progress-bar';
import { maxPayloadBytes, taskQueueOf, tenancyOf } from './definition-arg';

function checkOptions(ctx: CommandContext): string | undefined {
  if (ctx.positionals.length) {
    throw new UsageError(
      `"start --batch" takes no <file>; the definitions are the lines of the --batch file (unexpected ${JSON.stringify(ctx.positionals[0])})`,
      '--batch',
      ctx.name,
    );
  }
  for (const option of ['workflow-id', 'id-prefix']) {
    if (ctx.str(option) !== undefined) {
      throw new UsageError(
        `option --${option} does not go with --batch: each line's workflow id is the batch id and a hash of the line`,
        `--${option}`,
        ctx.name,
      );
    }
  }
  const batchId = ctx.str('batch-id');
  try {
    return batchId === undefined ? undefined : checkIdPart('batchId', batchId);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new UsageError(`option --batch-id: ${err.message.replace(/^\w+: /, '')}`, '--batch-id', ctx.name);
  }
}

function resultRow(r: BatchLineResult): string[] {
  if (r.outcome === 'started') return [`line ${r.line}`, 'started', r.workflowId];
  if (r.outcome === 'already-started') {
    return [`line ${r.line}`, r.sameAsLine ? `same as line ${r.sameAsLine}` : 'already started', r.workflowId];
  }
  return [`line ${r.line}`, 'failed', r.error];
}

export async function startBatchFile(ctx: CommandContext, session: Session): Promise<number> {
  const batchIdOption = checkOptions(ctx);
  const tenancy = tenancyOf(ctx);
  const { source, text } = await readDefinitionText(ctx.str('batch')!, {
    cwd: ctx.io.cwd,
    ...(ctx.io.stdin ? { stdin: ctx.io.stdin } : {}),
  });
  if (batchLines(text).length === 0) {
    throw new UsageError(`--batch ${source}: no definitions (every line is blank)`, '--batch', ctx.name);
  }
  const batchId = batchIdOption ?? defaultBatchId(text);
  const taskQueue = taskQueueOf(ctx);
  const limit = maxPayloadBytes(ctx);
  const client = await session.client();
  const bar = ProgressBar.on(ctx.io.stderr, `batch ${batchId}`);
  const counts = { started: 0, 'already-started': 0, failed: 0 };
  const report = await startBatch(client, text, {
    source,
    batchId,
    taskQueue,
    maxPayloadBytes: limit,
    ...tenancy,
    onResult: (r, done, total) => {
      counts[r.outcome]++;
      bar?.update(
        done,
        total,
        `${counts.started} started · ${counts['already-started']} already · ${counts.failed} failed`,
      );
    },
  });
  bar?.finish();
  const { started, alreadyStarted, failed } = report;
  ctx.emit({ ...report, file: source, taskQueue, namespace: session.namespace }, () => [
    ...table(
      ['LINE', 'OUTCOME', 'WORKFLOW ID / ERROR'],
      [...started, ...alreadyStarted, ...failed].sort((a, b) => a.line - b.line).map(resultRow),
    ).slice(1),
    `batch ${batchId}: ${started.length} started, ${alreadyStarted.length} already started, ${failed.length} failed`,
  ]);
  const pipelines = started.length + alreadyStarted.filter((r) => !r.sameAsLine).length;
  if (pipelines) ctx.info(`wait for the batch: reelflow wait --batch ${batchId} --expect ${pipelines}`);
  return failed.length ? EXIT.failed : EXIT.ok;
}
