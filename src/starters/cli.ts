#!/usr/bin/env node
/**
 * `reelflow`: start, watch and operate pipelines; check definitions; call the vendor.
 * See cli-spec.ts for the commands and `reelflow --help` for the synopsis.
 *
 * runCli() is the whole program with injectable streams and environment, so tests run
 * it in-process; the bottom of this file wires it to the real process.
 */
import type { Client } from '@temporalio/client';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import { DefinitionError } from '../definition/definition';
import { MissingCredentialError, VendorConfigError, VendorError } from '../vendor-api';
import { DEFAULT_TASK_QUEUE, type CreateDecision, type PipelineStatus } from '../workflows/messages';
import { REELFLOW_SEARCH_ATTRIBUTES, STAGE } from '../workflows/search-attributes';
import { registerSearchAttributes } from './register-search-attributes';
import { connectClient, type ConnectedClient } from './client';
import { CommandContext, EXIT, table, type CliIo } from './cli-output';
import { UsageError, commandHelp, mainHelp, parseCommandLine, type CommandSpec } from './cli-spec';
import { DefinitionFileError, loadDefinitionFile } from './definition-file';
import { MAX_PAYLOAD_ENV, resolveMaxPayloadBytes } from './payload-size';
import {
  cancelPipeline,
  definedStages,
  executionStatusName,
  failureChain,
  followPipeline,
  listPipelines,
  pipelineStatus,
  pipelineSummary,
  pipelineWorkflowId,
  resolveCreate,
  startPipeline,
  type ListPipelinesOptions,
  type PipelineOutcome,
} from './pipeline-client';
import { ProgressDisplay, renderFailure, renderResult, renderStatus } from './progress';
import { runVendorCommand } from './vendor-cli';

export type { CliIo } from './cli-output';

const VERSION = '0.1.0';

/** Exit code of an outcome: 0 completed, 1 failed/timed out, 3 cancelled/terminated. */
export function exitCodeOf(outcome: PipelineOutcome): number {
  if (outcome.status === 'completed') return EXIT.ok;
  return outcome.status === 'cancelled' || outcome.status === 'terminated' ? EXIT.cancelled : EXIT.failed;
}

/** JSON form of an outcome (what `run --json` and `result --json` print). */
export function outcomeDocument(outcome: PipelineOutcome): Record<string, unknown> {
  if (outcome.status === 'completed') return { workflowId: outcome.workflowId, status: 'completed', result: outcome.result };
  return { workflowId: outcome.workflowId, status: outcome.status, error: { message: outcome.messages[0], chain: outcome.messages } };
}

function printOutcome(ctx: CommandContext, outcome: PipelineOutcome): number {
  ctx.emit(outcomeDocument(outcome), () =>
    outcome.status === 'completed'
      ? renderResult(outcome.result)
      : renderFailure(`pipeline ${outcome.workflowId} ${outcome.status}`, outcome.messages),
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
      onStatus: (s: PipelineStatus) => {
        lastOk = Date.now();
        display?.update(s);
      },
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

class Session {
  private connected?: ConnectedClient;
  constructor(private readonly ctx: CommandContext) {}

  async client(): Promise<Client> {
    if (!this.connected) {
      const { env } = this.ctx.io;
      this.connected = await connectClient({
        env,
        ...(this.ctx.str('address') ? { address: this.ctx.str('address') } : {}),
        ...(this.ctx.str('namespace') ? { namespace: this.ctx.str('namespace') } : {}),
        ...(this.ctx.str('temporal-profile') ? { profile: this.ctx.str('temporal-profile') } : {}),
      });
    }
    return this.connected.client;
  }

  get namespace(): string | undefined {
    return this.connected?.namespace;
  }

  async connection(): Promise<ConnectedClient['connection']> {
    await this.client();
    return this.connected!.connection;
  }

  async close(): Promise<void> {
    await this.connected?.close();
  }
}

/** --max-payload-bytes, else $REELFLOW_MAX_PAYLOAD_BYTES, else Temporal's default. */
function maxPayloadBytes(ctx: CommandContext): number {
  try {
    return resolveMaxPayloadBytes(ctx.int('max-payload-bytes'), ctx.io.env);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message, MAX_PAYLOAD_ENV, ctx.name);
    throw err;
  }
}

async function loadDefinition(ctx: CommandContext) {
  return loadDefinitionFile(ctx.positionals[0], {
    cwd: ctx.io.cwd,
    maxPayloadBytes: maxPayloadBytes(ctx),
    ...(ctx.io.stdin ? { stdin: ctx.io.stdin } : {}),
  });
}

async function start(ctx: CommandContext, session: Session) {
  const loaded = await loadDefinition(ctx);
  const taskQueue = ctx.str('task-queue') ?? DEFAULT_TASK_QUEUE;
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
  const handle = await startPipeline(await session.client(), loaded.input, { taskQueue, workflowId, maxPayloadBytes: maxPayloadBytes(ctx) });
  return { handle, loaded, taskQueue };
}

function uiLink(env: NodeJS.ProcessEnv, namespace: string | undefined, workflowId: string): string | undefined {
  const ui = env.TEMPORAL_UI_URL?.replace(/\/+$/, '');
  return ui ? `${ui}/namespaces/${namespace ?? 'default'}/workflows/${encodeURIComponent(workflowId)}` : undefined;
}

/** The execution status of an existing workflow, or undefined when there is none. */
async function closedStatus(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    const status = executionStatusName(d.status.name);
    return status === 'running' ? undefined : status;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

function interrupted(ctx: CommandContext, workflowId: string): number {
  ctx.io.stderr.write(`\nstopped following; pipeline ${workflowId} keeps running (reelflow status ${workflowId} --follow)\n`);
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify({ workflowId, status: 'running', detached: true }, null, 2)}\n`);
  return EXIT.interrupted;
}

type CommandFn = (ctx: CommandContext, session: Session) => Promise<number>;

const PIPELINE_COMMANDS: Record<string, CommandFn> = {
  async validate(ctx) {
    const { source, definition } = await loadDefinition(ctx);
    const stages = definedStages(definition);
    ctx.emit({ valid: true, file: source, name: definition.name ?? null, stages, summary: pipelineSummary(definition), definition }, () => [
      `${source}: valid`,
      `  ${pipelineSummary(definition)}`,
    ]);
    return EXIT.ok;
  },

  async start(ctx, session) {
    const { handle, taskQueue } = await start(ctx, session);
    ctx.emit({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId, taskQueue, namespace: session.namespace }, () => [
      handle.workflowId,
    ]);
    ctx.info(`started on task queue "${taskQueue}"; follow it with: reelflow status ${handle.workflowId} --follow`);
    const link = uiLink(ctx.io.env, session.namespace, handle.workflowId);
    if (link) ctx.info(`Web UI: ${link}`);
    return EXIT.ok;
  },

  async run(ctx, session) {
    const { handle, taskQueue } = await start(ctx, session);
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
  },

  async status(ctx, session) {
    const id = ctx.positionals[0];
    const client = await session.client();
    if (ctx.bool('follow')) {
      try {
        const outcome = await followWithDisplay(client, id, ctx.io, {
          json: ctx.json,
          ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
        });
        return printOutcome(ctx, outcome);
      } catch (err) {
        if (ctx.io.signal?.aborted) return interrupted(ctx, id);
        throw err;
      }
    }
    try {
      const status = await pipelineStatus(client, id, { timeoutMs: 10_000 });
      ctx.emit(status, () => renderStatus(status));
      return EXIT.ok;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw err;
      // No worker answered (or the workflow task failed): say what Temporal knows.
      const d = await client.workflow.getHandle(id).describe();
      const stage = d.typedSearchAttributes.get(STAGE);
      const doc = {
        pipelineId: id,
        executionStatus: executionStatusName(d.status.name),
        stage: stage ?? null,
        startTime: d.startTime.toISOString(),
        closeTime: d.closeTime?.toISOString() ?? null,
        statusQueryError: failureChain(err).slice(-1)[0],
      };
      ctx.emit(doc, () => [
        `${id}  ${doc.executionStatus}${stage ? ` · ${String(stage)}` : ''}`,
        `  (from Temporal: no worker answered the status query, so no stage details: ${doc.statusQueryError})`,
        `  is a reelflow worker running on task queue "${d.taskQueue}"?`,
      ]);
      return EXIT.ok;
    }
  },

  async result(ctx, session) {
    const id = ctx.positionals[0];
    return printOutcome(ctx, await followPipeline(await session.client(), id, ctx.io.signal ? { signal: ctx.io.signal } : {}));
  },

  async cancel(ctx, session) {
    const id = ctx.positionals[0];
    const client = await session.client();
    const closed = await closedStatus(client, id);
    if (closed) throw new Error(`pipeline ${id} already ${closed}: nothing to cancel`);
    await cancelPipeline(client, id);
    if (!ctx.bool('wait')) {
      ctx.emit({ workflowId: id, cancelRequested: true }, () => [`cancellation requested for ${id}`]);
      return EXIT.ok;
    }
    const outcome = await followPipeline(client, id, ctx.io.signal ? { signal: ctx.io.signal } : {});
    ctx.emit({ workflowId: id, cancelRequested: true, ...outcomeDocument(outcome) }, () =>
      outcome.status === 'completed'
        ? [`${id} completed before the cancellation took effect`]
        : [`${id} ${outcome.status}`],
    );
    return outcome.status === 'cancelled' ? EXIT.ok : exitCodeOf(outcome);
  },

  async resolve(ctx, session) {
    const id = ctx.positionals[0];
    const taskId = ctx.str('task-id');
    const given = [taskId !== undefined && '--task-id', ctx.bool('resubmit') && '--resubmit', ctx.bool('abandon') && '--abandon'].filter(
      (x): x is string => !!x,
    );
    if (given.length !== 1) {
      throw new UsageError(
        given.length === 0
          ? '"resolve" needs one of --task-id <id>, --resubmit, --abandon'
          : `"resolve" takes only one of ${given.join(', ')}`,
        given[1] ?? '--task-id',
        ctx.name,
      );
    }
    const decision: CreateDecision = taskId !== undefined ? { taskId } : ctx.bool('resubmit') ? { resubmit: true } : { abandon: true };
    const step = ctx.str('step');
    const client = await session.client();
    let res;
    try {
      res = await resolveCreate(client, id, decision, step ? { step } : {});
    } catch (err) {
      // An Update to a closed workflow reports "not found": say what it is instead.
      const closed = err instanceof WorkflowNotFoundError ? await closedStatus(client, id) : undefined;
      if (closed) throw new Error(`pipeline ${id} already ${closed}: nothing waits for a decision`);
      throw err;
    }
    ctx.emit({ workflowId: id, ...res }, () => [`${id}: ${res.stage} step ${res.step} accepted ${JSON.stringify(res.accepted)}`]);
    return EXIT.ok;
  },

  async setup(ctx, session) {
    const deadline = Date.now() + (ctx.int('wait') ?? 0) * 1_000;
    for (;;) {
      try {
        const connection = await session.connection();
        const namespace = session.namespace ?? 'default';
        const added = await registerSearchAttributes(connection, namespace);
        ctx.emit({ namespace, added, searchAttributes: REELFLOW_SEARCH_ATTRIBUTES }, () => [
          added.length ? `${namespace}: registered ${added.join(', ')}` : `${namespace}: search attributes already registered`,
        ]);
        return EXIT.ok;
      } catch (err) {
        if (Date.now() >= deadline) throw err;
        await new Promise((r) => setTimeout(r, 2_000));
      }
    }
  },

  async list(ctx, session) {
    const status = ctx.str('status');
    const opts: ListPipelinesOptions = {
      ...(status ? { status: (status === 'canceled' ? 'cancelled' : status) as ListPipelinesOptions['status'] } : {}),
      ...(ctx.str('stage') ? { stage: ctx.str('stage') as ListPipelinesOptions['stage'] } : {}),
      ...(ctx.str('vendor-task') ? { vendorTaskId: ctx.str('vendor-task') } : {}),
      ...(ctx.str('query') ? { query: ctx.str('query') } : {}),
      limit: ctx.int('limit') ?? 50,
    };
    let items;
    try {
      items = await listPipelines(await session.client(), opts);
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(err.message, `--${err.message.split(':')[0]}`, ctx.name);
      throw err;
    }
    ctx.emit({ pipelines: items }, () => [
      ...table(
        ['WORKFLOW ID', 'STATUS', 'STAGE', 'STARTED', 'VENDOR TASKS'],
        items.map((p) => [
          p.workflowId,
          p.executionStatus === 'running' && p.status ? p.status : p.executionStatus,
          p.stage,
          p.startTime,
          p.vendorTaskIds.join(','),
        ]),
      ),
      `${items.length} pipeline(s)`,
    ]);
    return EXIT.ok;
  },
};

interface ErrorReport {
  code: number;
  kind: string;
  lines: string[];
  doc: Record<string, unknown>;
}

/** Classifies an error: exit code, the lines for stderr, the JSON error document. */
export function reportError(err: unknown, command?: CommandSpec): ErrorReport {
  if (err instanceof UsageError) {
    const help = err.command ?? command?.name;
    return {
      code: EXIT.usage,
      kind: 'usage',
      lines: [`reelflow: ${err.message}`, help ? `see: reelflow ${help} --help` : 'see: reelflow --help'],
      doc: { kind: 'usage', message: err.message, ...(err.option ? { option: err.option } : {}) },
    };
  }
  if (err instanceof DefinitionFileError) {
    return {
      code: EXIT.usage,
      kind: 'definition',
      lines: err.lines(),
      doc: {
        kind: 'definition',
        reason: err.kind,
        file: err.file,
        message: err.message,
        ...(err.line !== undefined ? { line: err.line, column: err.column } : {}),
        ...(err.issues.length ? { issues: err.issues } : {}),
      },
    };
  }
  if (err instanceof DefinitionError) {
    return {
      code: EXIT.usage,
      kind: 'definition',
      lines: err.issues.map((i) => `${i.path || '(root)'}: ${i.message}`),
      doc: { kind: 'definition', message: err.message, issues: err.issues },
    };
  }
  if (err instanceof VendorConfigError || err instanceof MissingCredentialError) {
    const variable = err instanceof VendorConfigError ? err.variable : err.field;
    return {
      code: EXIT.usage,
      kind: 'config',
      lines: [`reelflow: ${err.message}`],
      doc: { kind: 'config', message: err.message, ...(variable ? { variable } : {}) },
    };
  }
  if (err instanceof VendorError) {
    return {
      code: EXIT.failed,
      kind: 'vendor',
      lines: [`reelflow: ${err.message}`],
      doc: {
        kind: 'vendor',
        type: err.name,
        message: err.message,
        endpoint: err.endpoint,
        ...(err.status !== undefined ? { status: err.status } : {}),
        ...(err.vendorCode !== undefined ? { vendorCode: err.vendorCode } : {}),
        ...(err.field !== undefined ? { field: err.field } : {}),
        ...(err.traceId !== undefined ? { traceId: err.traceId } : {}),
      },
    };
  }
  if (err instanceof WorkflowNotFoundError) {
    const message = `no pipeline with workflow id "${err.workflowId}" in this namespace`;
    return { code: EXIT.failed, kind: 'not-found', lines: [`reelflow: ${message}`], doc: { kind: 'not-found', message, workflowId: err.workflowId } };
  }
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    const message = `workflow id "${err.workflowId}" is already in use by a running workflow; choose another --workflow-id`;
    return { code: EXIT.failed, kind: 'already-started', lines: [`reelflow: ${message}`], doc: { kind: 'already-started', message, workflowId: err.workflowId } };
  }
  const chain = failureChain(err);
  const label = err instanceof WorkflowUpdateFailedError ? 'rejected' : 'error';
  return {
    code: EXIT.failed,
    kind: label,
    lines: renderFailure(`reelflow: ${label}`, chain.length ? chain : ['unknown error']),
    doc: { kind: label, message: chain[0] ?? String(err), chain },
  };
}

/** The whole CLI. Resolves with the exit code; never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: CommandSpec | undefined;
  let json = argv.includes('--json');
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === 'help') {
      io.stdout.write(parsed.command ? commandHelp(parsed.command) : mainHelp(parsed.group));
      return EXIT.ok;
    }
    if (parsed.kind === 'version') {
      io.stdout.write(`reelflow ${VERSION}\n`);
      return EXIT.ok;
    }
    command = parsed.command;
    json = parsed.json;
    const ctx = new CommandContext(command.name, parsed.positionals, parsed.values, io);
    if (command.needs === 'vendor') return await runVendorCommand(ctx);
    const fn = PIPELINE_COMMANDS[command.name];
    const session = new Session(ctx);
    try {
      return await fn(ctx, session);
    } finally {
      await session.close();
    }
  } catch (err) {
    const report = reportError(err, command);
    for (const line of report.lines) io.stderr.write(`${line}\n`);
    if (json) io.stdout.write(`${JSON.stringify({ error: report.doc }, null, 2)}\n`);
    return report.code;
  }
}

/** Wires runCli to the process: Ctrl-C stops following (twice: exit at once). */
export async function main(argv = process.argv.slice(2)): Promise<number> {
  const abort = new AbortController();
  const onSigint = () => {
    if (abort.signal.aborted) process.exit(EXIT.interrupted);
    abort.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  try {
    return await runCli(argv, {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      env: process.env,
      cwd: process.cwd(),
      signal: abort.signal,
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
}

if (require.main === module) {
  // `reelflow list | head`: a closed pipe ends the output quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
      throw err;
    });
  }
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`reelflow: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
