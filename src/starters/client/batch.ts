/**
 * Batches: many pipelines from a JSON Lines text, one definition per line. Each line's
 * workflow id is the batch id plus a hash of the line, and batch starts refuse an id
 * already used (WorkflowIdReusePolicy REJECT_DUPLICATE), so running the same batch
 * again starts nothing twice while the earlier runs are within retention. Every
 * pipeline carries the ReelflowBatch search attribute (`listPipelines({ batchId })`).
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  DefinitionFileError,
  parseJsonText,
  validateDefinitionValue,
  type DefinitionIssue,
  type LoadedDefinition,
} from './definition-file';
import { checkIdPart, failureChain, startPipeline } from './pipeline-client';
import { checkTenantOptions, type TenantStartOptions } from './tenant-options';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The default batch id: "batch-" and 12 hex digits of the file's SHA-256 (same file, same batch). */
export function defaultBatchId(text: string): string {
  return `batch-${sha256(text).slice(0, 12)}`;
}

/** `<batchId>-<16 hex digits of the line's SHA-256>`; the line without surrounding white space. */
export function batchWorkflowId(batchId: string, lineText: string): string {
  return `${checkIdPart('batchId', batchId)}-${sha256(lineText.trim()).slice(0, 16)}`;
}

export interface BatchLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/** The non-blank lines, numbered as in the file. */
export function batchLines(text: string): BatchLine[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body
    .split('\n')
    .map((t, i) => ({ line: i + 1, text: t.trim() }))
    .filter((l) => l.text !== '');
}

export type BatchLineResult =
  | { line: number; outcome: 'started'; workflowId: string; runId: string }
  /** Started by an earlier run of the batch (or an earlier identical line: `sameAsLine`). */
  | { line: number; outcome: 'already-started'; workflowId: string; sameAsLine?: number }
  | {
      line: number;
      outcome: 'failed';
      /** "defs.jsonl:3: generation.model: …", or why the start failed. */
      error: string;
      /** The first field at fault, when the definition is invalid. */
      field?: string;
      issues?: DefinitionIssue[];
      workflowId?: string;
    };

/** `tenant` / `priority` replace every line's options.tenant / options.priority (a line's own apply without them). */
export interface StartBatchOptions extends TenantStartOptions {
  /** Names the file in errors ("defs.jsonl:3: …"; default "batch"). */
  source?: string;
  /** Default: defaultBatchId(text). */
  batchId?: string;
  taskQueue?: string;
  maxPayloadBytes?: number;
  /** Starts in flight at once (default 8). */
  concurrency?: number;
  /** After each line, in completion order. */
  onResult?: (result: BatchLineResult, done: number, total: number) => void;
}

export interface BatchReport {
  batchId: string;
  total: number;
  started: Extract<BatchLineResult, { outcome: 'started' }>[];
  alreadyStarted: Extract<BatchLineResult, { outcome: 'already-started' }>[];
  failed: Extract<BatchLineResult, { outcome: 'failed' }>[];
}

/** A line's definition, or why it is not one (with the line number and the field). */
export function checkBatchLine(l: BatchLine, source: string, maxPayloadBytes?: number) {
  const where = `${source}:${l.line}`;
  try {
    return validateDefinitionValue(parseJsonText(l.text, where), where, {
      ...(maxPayloadBytes !== undefined ? { maxPayloadBytes } : {}),
    });
  } catch (err) {
    if (!(err instanceof DefinitionFileError)) throw err;
    if (err.kind === 'json') {
      // parseJsonText counts lines within the line: keep the column, name the file's line.
      const reason = err.message.replace(/^.*?: invalid JSON/, 'invalid JSON');
      const error = `${where}${err.column !== undefined ? `:${err.column}` : ''}: ${reason}`;
      return { line: l.line, outcome: 'failed' as const, error };
    }
    const field = err.issues[0]?.path;
    return {
      line: l.line,
      outcome: 'failed' as const,
      error: err.lines().join('; '),
      ...(field !== undefined ? { field: field || '(root)' } : {}),
      issues: err.issues,
    };
  }
}

async function startLine(
  client: Client,
  l: BatchLine,
  loaded: LoadedDefinition,
  workflowId: string,
  opts: StartBatchOptions & { batchId: string },
): Promise<BatchLineResult> {
  try {
    const handle = await startPipeline(client, loaded, {
      workflowId,
      batchId: opts.batchId,
      ...(opts.taskQueue !== undefined ? { taskQueue: opts.taskQueue } : {}),
      ...(opts.maxPayloadBytes !== undefined ? { maxPayloadBytes: opts.maxPayloadBytes } : {}),
      ...(opts.tenant !== undefined ? { tenant: opts.tenant } : {}),
      ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    });
    return { line: l.line, outcome: 'started', workflowId, runId: handle.firstExecutionRunId };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      return { line: l.line, outcome: 'already-started', workflowId };
    const chain = failureChain(err).join(': ');
    // A namespace set up before ReelflowBatch existed lacks it: say how to add it.
    const hint = /search attribute/i.test(chain) ? " (register reelflow's search attributes: reelflow setup)" : '';
    return {
      line: l.line,
      outcome: 'failed',
      error: `${opts.source ?? 'batch'}:${l.line}: ${chain}${hint}`,
      workflowId,
    };
  }
}

/**
 * Starts every valid line of a JSON Lines text as a pipeline of one batch. A bad line
 * (invalid JSON or definition) is reported with its line number and field; the others
 * still start; a start the server refuses is reported on its line too.
 */
export async function startBatch(client: Client, text: string, opts: StartBatchOptions = {}): Promise<BatchReport> {
  const batchId = checkIdPart('batchId', opts.batchId ?? defaultBatchId(text));
  checkTenantOptions(opts);
  const source = opts.source ?? 'batch';
  const lines = batchLines(text);
  const results: BatchLineResult[] = [];
  const report = (r: BatchLineResult) => {
    results.push(r);
    opts.onResult?.(r, results.length, lines.length);
  };
  const firstLineOf = new Map<string, number>();
  const toStart: { l: BatchLine; loaded: LoadedDefinition; workflowId: string }[] = [];
  for (const l of lines) {
    const checked = checkBatchLine(l, source, opts.maxPayloadBytes);
    if ('outcome' in checked) {
      report(checked);
      continue;
    }
    const workflowId = batchWorkflowId(batchId, l.text);
    const first = firstLineOf.get(workflowId);
    if (first !== undefined) report({ line: l.line, outcome: 'already-started', workflowId, sameAsLine: first });
    else {
      firstLineOf.set(workflowId, l.line);
      toStart.push({ l, loaded: checked, workflowId });
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < toStart.length) {
      const { l, loaded, workflowId } = toStart[next++];
      report(await startLine(client, l, loaded, workflowId, { ...opts, batchId, source }));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
  results.sort((a, b) => a.line - b.line);
  return {
    batchId,
    total: lines.length,
    started: results.filter((r) => r.outcome === 'started'),
    alreadyStarted: results.filter((r) => r.outcome === 'already-started'),
    failed: results.filter((r) => r.outcome === 'failed'),
  };
}
