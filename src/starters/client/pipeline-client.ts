/**
 * The programmatic API for pipelines: start, run-and-watch, status, result, cancel,
 * operator decisions and listing. Everything takes a Temporal `Client` (see client.ts
 * for one configured from the environment) and validates a definition before anything
 * starts.
 */
import { randomBytes } from 'node:crypto';
import {
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionInfo,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import {
  type SearchAttributePair,
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  ServerFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowIdReusePolicy,
} from '@temporalio/common';
import { plainMessage } from './plain-error';
import {
  durationMs,
  parseDefinition,
  type PipelineDefinition,
  type PipelineDefinitionInput,
} from '../../definition/definition';
import {
  DEFAULT_TASK_QUEUE,
  STAGES,
  resolveCreateUpdate,
  statusQuery,
  type CreateDecision,
  type PipelineInput,
  type PipelineResult,
  type PipelineReuse,
  type PipelineStatus,
  type ResolveCreateInput,
  type ResolveCreateResult,
  type StageName,
} from '../../contract/messages';
import { BATCH, STAGE, STATUS, TENANT, VENDOR_TASK_IDS } from '../../contract/search-attributes';
import { startPriority } from '../../contract/tenancy';
import { stageEnabled } from '../../contract/stages';
import { LoadedDefinition } from './definition-file';
import { definitionOnTheWire, resolveMaxPayloadBytes } from './payload-size';
import { PipelineFailedError } from './pipeline-failed';
import { statusKey } from './status-change';
import { asResolveRefused } from './resolve-refused';
import { checkTenantOptions, hasTenantOptions, withTenantOptions, type TenantStartOptions } from './tenant-options';

/** Workflow type name of the pipeline workflow, one per pipeline (src/workflows: `videoPipeline`). */
export const PIPELINE_WORKFLOW_TYPE = 'videoPipeline';

/** The pipeline workflow's signature, as clients see it. */
export type VideoPipelineWorkflow = (input: PipelineInput) => Promise<PipelineResult>;
export type PipelineHandle = WorkflowHandleWithFirstExecutionRunId<VideoPipelineWorkflow>;

export interface StartPipelineOptions extends TenantStartOptions {
  /** Task queue the reelflow worker polls (default "reelflow"). */
  taskQueue?: string;
  /** Your business id; default `<namePrefix>-<definition.name or "pipeline">-<random>`. */
  workflowId?: string;
  /** First part of generated workflow ids (default "reelflow"). */
  namePrefix?: string;
  /** Refuse a definition bigger than this as workflow input (default: $REELFLOW_MAX_PAYLOAD_BYTES, else Temporal's 2 MiB). */
  maxPayloadBytes?: number;
  /**
   * Tags the pipeline with the ReelflowBatch search attribute at start (`listPipelines({ batchId })`),
   * and refuses its workflow id while an earlier run of it is kept (retention): a batch starts nothing twice.
   */
  batchId?: string;
  /** The earlier run whose finished outputs to reuse (see rerunPipeline, which builds it). */
  reuse?: PipelineReuse;
  /**
   * Refuse the workflow id while an earlier run of it is kept (retention), as a batch does:
   * an idempotency key that maps to the id then never starts a second pipeline.
   */
  rejectDuplicate?: boolean;
  /** Memo set at start (e.g. who started it: the gateway's `startedBy`). Never secrets: the memo is in history. */
  memo?: Record<string, unknown>;
}

const ID_PART = /^[A-Za-z0-9_.-]+$/;

/** A batch or schedule id goes into workflow ids and visibility queries: an id part, at most 200 characters. */
export function checkIdPart(field: string, value: string): string {
  if (!ID_PART.test(value) || value.length > 200) {
    throw new RangeError(
      `${field}: 1 to 200 letters, digits, '.', '-' and '_' (got ${JSON.stringify(value.slice(0, 210))})`,
    );
  }
  return value;
}

/** A short random suffix: 8 characters of [a-z0-9]. */
function shortRandom(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(8), (b) => alphabet[b % alphabet.length]).join('');
}

/** reelflow-<name or "pipeline">-<random>, e.g. reelflow-demo-k3j9x2ab. */
export function pipelineWorkflowId(definition: Pick<PipelineDefinition, 'name'>, namePrefix = 'reelflow'): string {
  if (!ID_PART.test(namePrefix)) {
    throw new RangeError(`namePrefix: letters, digits, '.', '-' and '_' only (got ${JSON.stringify(namePrefix)})`);
  }
  return `${namePrefix}-${definition.name ?? 'pipeline'}-${shortRandom()}`;
}

/** The stages a definition runs, in order. */
export function definedStages(def: PipelineDefinition): StageName[] {
  return STAGES.filter((s) => stageEnabled(def, s));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function describeStage(def: PipelineDefinition, stage: StageName): string {
  switch (stage) {
    case 'review': {
      const r = def.review!;
      return r.assetType
        ? `review ${plural(r.media.length, r.assetType.toLowerCase())}`
        : `review ${r.media.length} media`;
    }
    case 'assets': {
      const a = def.assets!;
      const group = 'id' in a.group ? `group ${a.group.id}` : `group "${a.group.name}"`;
      return `${plural(a.items.length, 'asset')} into ${group}`;
    }
    case 'generation': {
      const g = def.generation!;
      const media = g.content.filter((c) => c.type !== 'text').length;
      return `generate with ${g.model}${media ? ` (${plural(media, 'media input')})` : ''}`;
    }
    case 'erase':
      return 'erase subtitles';
  }
}

/** One line for the Web UI's summary: "demo: review 2 images → 2 assets into group "x" → …". */
export function pipelineSummary(def: PipelineDefinition): string {
  const stages = definedStages(def).map((s) => describeStage(def, s));
  const tenant = def.options.tenant === undefined ? '' : ` [${def.options.tenant}]`;
  return `${def.name ?? 'pipeline'}${tenant}: ${stages.join(' → ')}`;
}

/** Markdown for the Web UI's details: one row per stage, no URLs, no secrets. */
export function pipelineDetails(def: PipelineDefinition): string {
  const rows: string[] = [];
  if (def.review) {
    const r = def.review;
    rows.push(
      `| review | ${plural(r.media.length, 'URL')}${r.assetType ? ` (${r.assetType})` : ''}; all must pass: ${r.requireAllPassed} |`,
    );
  }
  if (def.assets) {
    const a = def.assets;
    const group = 'id' in a.group ? `group id \`${a.group.id}\`` : `group \`${a.group.name}\` (created if missing)`;
    const items = a.items.map((i) =>
      'fromReview' in i ? `${i.name} (review #${i.fromReview})` : `${i.name} (${i.type} URL)`,
    );
    rows.push(`| assets | ${group}: ${items.join(', ')} |`);
  }
  if (def.generation) {
    const g = def.generation;
    const parts = g.content.map((c) =>
      c.role ? `${c.type.replace('_url', '')} as ${c.role}` : c.type.replace('_url', ''),
    );
    const extra = [g.ratio, g.duration !== undefined ? `${g.duration} s` : undefined, g.resolution].filter(Boolean);
    rows.push(
      `| generation | model \`${g.model}\`: ${parts.join(' + ')}${extra.length ? `; ${extra.join(', ')}` : ''} |`,
    );
  }
  if (def.erase) rows.push('| erase | subtitles of the generated video |');
  const o = def.options;
  return [
    `**reelflow pipeline** \`${def.name ?? 'pipeline'}\` · credential profile \`${o.profile}\` · callbacks ${o.callbacks ? 'on' : 'off'} · archive ${o.archive ? 'on' : 'off'}`,
    '',
    '| stage | what |',
    '|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * What every start of a pipeline carries, whoever starts it (startPipeline, a batch, a
 * schedule's action): input, summary and details for the Web UI, the search attributes
 * (first stage, `running`, the batch when there is one) and the pipeline deadline.
 */
export function pipelineStartFields(
  wire: PipelineInput['definition'],
  def: PipelineDefinition,
  opts: { taskQueue?: string; batchId?: string; reuse?: PipelineReuse } = {},
) {
  const { reuse } = opts;
  const input: PipelineInput = { definition: wire, ...(reuse ? { reuse } : {}) };
  const rerunOf = reuse ? ` (rerun of ${reuse.fromPipelineId})` : '';
  const priority = startPriority(def.options.tenant, def.options.priority);
  return {
    taskQueue: opts.taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [input] as [PipelineInput],
    staticSummary: `${pipelineSummary(def)}${rerunOf}`,
    staticDetails: pipelineDetails(def),
    typedSearchAttributes: [
      // A rerun starts at its first stage that is not reused (the archive when all are).
      { key: STAGE, value: definedStages(def).find((s) => !(reuse?.stages ?? []).includes(s)) ?? 'archive' },
      { key: STATUS, value: 'running' },
      ...(opts.batchId !== undefined ? [{ key: BATCH, value: opts.batchId }] : []),
      ...(def.options.tenant !== undefined ? [{ key: TENANT, value: def.options.tenant }] : []),
    ] as SearchAttributePair[],
    // What the definition asks; the worker's tenant configuration may lower it (docs/tenants.md).
    ...(priority ? { priority } : {}),
    ...(def.options.deadlines.pipeline !== undefined
      ? { workflowExecutionTimeout: durationMs(def.options.deadlines.pipeline) }
      : {}),
  };
}

/**
 * What a start sends and reads: a loaded definition as it is (checked against this limit
 * by its size alone), a definition as written validated now, as the workflow will read it.
 */
function checkedForStart(
  definition: PipelineDefinitionInput | LoadedDefinition,
  maxPayloadBytes: number,
  tenancy: TenantStartOptions = {},
): { input: PipelineDefinitionInput; definition: PipelineDefinition } {
  checkTenantOptions(tenancy);
  if (definition instanceof LoadedDefinition) {
    if (!hasTenantOptions(tenancy)) return definition.within(maxPayloadBytes);
    // The start's tenant or priority changes what the workflow receives: measured and parsed again.
    definition = definition.input;
  }
  const input = definitionOnTheWire(withTenantOptions(definition, tenancy), maxPayloadBytes);
  return { input, definition: parseDefinition(input) };
}

/**
 * Starts a pipeline and returns its handle. The definition is validated first, as the
 * workflow will read it and for its size: a DefinitionError (naming the field paths) is
 * thrown before anything starts. A LoadedDefinition (loadDefinitionFile,
 * validateDefinitionValue) was validated when it was loaded and is not parsed again; over
 * this start's payload limit it is refused with a DefinitionFileError naming its source.
 * `tenant` and `priority` replace the definition's options (a RangeError names a bad one).
 */
export async function startPipeline(
  client: Client,
  definition: PipelineDefinitionInput | LoadedDefinition, // typed at compile time; still validated here (raw JSON: validateDefinitionValue first)
  opts: StartPipelineOptions = {},
): Promise<PipelineHandle> {
  const { input: wire, definition: def } = checkedForStart(
    definition,
    resolveMaxPayloadBytes(opts.maxPayloadBytes),
    opts,
  );
  const workflowId = opts.workflowId ?? pipelineWorkflowId(def, opts.namePrefix);
  if (!workflowId.trim()) throw new RangeError('workflowId: must not be empty');
  if (opts.batchId !== undefined) checkIdPart('batchId', opts.batchId);
  return client.workflow.start<VideoPipelineWorkflow>(PIPELINE_WORKFLOW_TYPE, {
    workflowId,
    ...pipelineStartFields(wire, def, opts),
    ...(opts.batchId !== undefined || opts.rejectDuplicate
      ? { workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE }
      : {}),
    ...(opts.memo ? { memo: opts.memo } : {}),
  });
}

/** How a pipeline ended. */
export type PipelineOutcome =
  | { status: 'completed'; workflowId: string; result: PipelineResult }
  | {
      status: 'failed' | 'cancelled' | 'terminated' | 'timed-out';
      workflowId: string;
      /** Typed: the failure type, stage, vendor code and vendor tasks (the SDK's error is its `cause`). */
      error: PipelineFailedError;
      /** The failure's message chain, outermost first. */
      messages: string[];
    };

function describeFailure(err: unknown): string {
  if (err instanceof WorkflowFailedError) return err.message || 'workflow execution failed';
  if (err instanceof ChildWorkflowFailure) {
    return `child workflow ${err.execution.workflowId ?? '?'} (${err.workflowType}) failed`;
  }
  if (err instanceof ActivityFailure)
    return `activity ${err.activityType} failed${err.activityId ? ` (id ${err.activityId})` : ''}`;
  if (err instanceof ApplicationFailure) return err.type ? `${err.type}: ${err.message}` : err.message;
  if (err instanceof TimeoutFailure) return `timed out (${String(err.timeoutType ?? 'timeout')}): ${err.message}`;
  if (err instanceof CancelledFailure) return `cancelled${err.message ? `: ${err.message}` : ''}`;
  if (err instanceof TerminatedFailure) return `terminated${err.message ? `: ${err.message}` : ''}`;
  if (err instanceof ServerFailure) return `server: ${err.message}`;
  if (err instanceof Error) return plainMessage(err);
  return String(err);
}

/** The message chain of a failure, outermost first (WorkflowFailedError → activity → vendor error). */
export function failureChain(err: unknown): string[] {
  if (err instanceof PipelineFailedError) return err.messages; // the chain of the SDK error it wraps
  const out: string[] = [];
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e && !seen.has(e) && out.length < 20) {
    seen.add(e);
    const line = describeFailure(e);
    if (out[out.length - 1] !== line) out.push(line);
    e = e instanceof Error ? (e as Error & { cause?: unknown }).cause : undefined;
  }
  return out;
}

/** Maps the error of `handle.result()` to an outcome; rethrows what is not a pipeline outcome. */
export function outcomeOf(workflowId: string, err: unknown): Exclude<PipelineOutcome, { status: 'completed' }> {
  if (err instanceof PipelineFailedError) return { status: err.status, workflowId, error: err, messages: err.messages };
  if (!(err instanceof WorkflowFailedError)) throw err;
  const error = new PipelineFailedError(workflowId, err, failureChain(err));
  return { status: error.status, workflowId, error, messages: error.messages };
}

export interface FollowOptions {
  /** Called with the status when what it shows has changed (statusKey: vendor call counters aside), and once at the start. */
  onStatus?: (status: PipelineStatus) => void;
  /** Called after every status query answered, changed or not (a sign of life). */
  onAnswer?: () => void;
  /** Called when a status query fails (no worker yet, workflow task not done yet…). */
  onStatusError?: (err: unknown) => void;
  /** Between status queries (default 1000 ms). */
  intervalMs?: number;
  /** Per status query (default 5000 ms). */
  queryTimeoutMs?: number;
  /** Stop following (the pipeline keeps running). The promise rejects with the abort reason. */
  signal?: AbortSignal;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/**
 * Follows a running pipeline until it ends: polls the status query, awaits the result.
 * Resolves with the outcome (completed, failed, cancelled, terminated, timed-out); rejects
 * only when the workflow does not exist, the connection fails, or `signal` aborts.
 */
export async function followPipeline(
  client: Client,
  workflowId: string,
  opts: FollowOptions = {},
): Promise<PipelineOutcome> {
  const { signal } = opts;
  if (signal?.aborted) throw abortError(signal);
  const handle = client.workflow.getHandle<VideoPipelineWorkflow>(workflowId);
  const awaitResult = () => handle.result();
  const outcome: Promise<PipelineOutcome> = (signal ? client.withAbortSignal(signal, awaitResult) : awaitResult()).then(
    (result) => ({ status: 'completed' as const, workflowId, result }),
    (err: unknown) => {
      if (signal?.aborted) throw abortError(signal);
      return outcomeOf(workflowId, err);
    },
  );
  let ended = false;
  const settled = outcome.then(
    () => void (ended = true),
    () => void (ended = true),
  );
  const interval = opts.intervalMs ?? 1_000;
  let lastKey: string | undefined;
  const poll = async (): Promise<void> => {
    if (!opts.onStatus && !opts.onAnswer) return;
    try {
      const status = await client.withDeadline(Date.now() + (opts.queryTimeoutMs ?? 5_000), () =>
        handle.query(statusQuery),
      );
      opts.onAnswer?.();
      const key = statusKey(status);
      if (key === lastKey) return;
      lastKey = key;
      opts.onStatus?.(status);
    } catch (err) {
      opts.onStatusError?.(err);
    }
  };
  while (!ended && !signal?.aborted) {
    await poll();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      settled,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, interval);
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) {
    await settled;
    throw abortError(signal);
  }
  // The final state (best effort: the query of a closed workflow needs a worker to replay it).
  await poll();
  return outcome;
}

export interface RunPipelineOptions extends StartPipelineOptions, Omit<FollowOptions, 'signal'> {
  /** Called once the workflow has started. */
  onStarted?: (handle: PipelineHandle) => void;
}

/**
 * Starts a pipeline and waits for its result. A failed, cancelled, terminated or
 * timed-out pipeline rejects with a PipelineFailedError (its `type`, `stage`, `vendorCode`,
 * `vendorTasks`; the SDK's WorkflowFailedError as `cause`). Pass onStatus to watch it progress.
 */
export async function runPipeline(
  client: Client,
  definition: PipelineDefinitionInput | LoadedDefinition, // typed at compile time; still validated here (raw JSON: validateDefinitionValue first)
  opts: RunPipelineOptions = {},
): Promise<PipelineResult> {
  const handle = await startPipeline(client, definition, opts);
  opts.onStarted?.(handle);
  const outcome = await followPipeline(client, handle.workflowId, opts);
  if (outcome.status === 'completed') return outcome.result;
  throw outcome.error;
}

/** The pipeline's live status (the workflow's `status` query; needs a running worker). */
export async function pipelineStatus(
  client: Client,
  workflowId: string,
  opts: { timeoutMs?: number } = {},
): Promise<PipelineStatus> {
  const handle = client.workflow.getHandle<VideoPipelineWorkflow>(workflowId);
  return opts.timeoutMs
    ? client.withDeadline(Date.now() + opts.timeoutMs, () => handle.query(statusQuery))
    : handle.query(statusQuery);
}

/**
 * Waits for the pipeline's result; rejects with PipelineFailedError when it did not complete
 * (other errors, e.g. WorkflowNotFoundError or a lost connection, reject as they are).
 */
export async function pipelineResult(client: Client, workflowId: string): Promise<PipelineResult> {
  try {
    return await client.workflow.getHandle<VideoPipelineWorkflow>(workflowId).result();
  } catch (err) {
    throw outcomeOf(workflowId, err).error; // rethrows what is not a pipeline's end as it is
  }
}

/**
 * Requests cancellation. The workflow cancels its activities and timers and ends as
 * cancelled; vendor tasks already created keep running at the vendor (their ids stay in
 * the status).
 */
export async function cancelPipeline(client: Client, workflowId: string): Promise<void> {
  await client.workflow.getHandle(workflowId).cancel();
}

/**
 * Answers a pipeline that waits for an operator after an ambiguous create: a task id
 * found in the vendor console, `{ resubmit: true }` or `{ abandon: true }`, through the
 * pipeline workflow's `resolveCreate` Update. Rejects with ResolveRefusedError (a
 * WorkflowUpdateFailedError whose message is the workflow's reason) when the workflow
 * refuses it: nothing is waiting, a malformed decision, or a task id that fails the proof
 * (type TaskIdRefused; the pipeline goes on waiting, answer again).
 *
 * An Update that reaches the server while the workflow task in flight fails (the run
 * continuing as new at that moment, say) is aborted before the workflow sees it, with
 * FAILED_PRECONDITION: it is sent again, under the same update id, so the server never
 * applies it twice.
 */
export async function resolveCreate(
  client: Client,
  workflowId: string,
  decision: CreateDecision,
  opts: { step?: string; retryDelayMs?: number } = {},
): Promise<ResolveCreateResult> {
  const handle = client.workflow.getHandle(workflowId);
  const updateId = `resolve-${randomBytes(8).toString('hex')}`;
  const args: [ResolveCreateInput] = [{ decision, ...(opts.step ? { step: opts.step } : {}) }];
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.executeUpdate(resolveCreateUpdate, { args, updateId });
    } catch (err) {
      if (attempt >= RESOLVE_ATTEMPTS || !abortedBeforeTheWorkflowSawIt(err)) throw asResolveRefused(workflowId, err);
      await new Promise((r) => setTimeout(r, (opts.retryDelayMs ?? 250) * attempt));
    }
  }
}

const RESOLVE_ATTEMPTS = 5;
const FAILED_PRECONDITION = 9;

/** Exported for its unit test. */
export function abortedBeforeTheWorkflowSawIt(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown; details?: unknown; message?: unknown } } | undefined)?.cause;
  const text = [cause?.details, cause?.message].find((t): t is string => typeof t === 'string') ?? '';
  return cause?.code === FAILED_PRECONDITION && /workflow task failure/i.test(text);
}

/** Filters of `listPipelines` / `reelflow list --status`. */
export const LIST_STATUSES = [
  'running',
  'waiting-operator',
  'stuck',
  'queued',
  'waiting-budget',
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed-out',
] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];
export const LIST_STAGES = [...STAGES, 'archive', 'done'] as const;

const EXECUTION_STATUS: Record<ListStatus, string> = {
  running: 'Running',
  'waiting-operator': 'Running',
  stuck: 'Running',
  queued: 'Running',
  'waiting-budget': 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  'timed-out': 'TimedOut',
};

export interface ListPipelinesOptions {
  status?: ListStatus;
  stage?: (typeof LIST_STAGES)[number];
  vendorTaskId?: string;
  /** Pipelines started by `reelflow start --batch` with this batch id. */
  batchId?: string;
  /** Pipelines of this tenant (the ReelflowTenant search attribute; docs/tenants.md). */
  tenant?: string;
  /** Pipelines on this task queue. */
  taskQueue?: string;
  /** Extra visibility query, ANDed (e.g. "StartTime > '2025-01-01T00:00:00Z'"). */
  query?: string;
  /** At most this many (default 100), newest first. */
  limit?: number;
}

/** Values go into a visibility query string literal: no quotes, backslashes or control characters. */
function literal(option: string, value: string): string {
  if (!value || /['"\\\u0000-\u001f]/.test(value)) {
    throw new RangeError(`${option}: must be non-empty without quotes, backslashes or control characters`);
  }
  return `'${value}'`;
}

/**
 * The user's clause, checked to stand on its own inside the parentheses it gets: every
 * parenthesis closes within it and every quote ends, so `x = 1) OR (WorkflowType = 'n'`
 * cannot close ours and escape the WorkflowType filter. Outside quotes, comments and
 * backslashes are refused too (a parser that skips them would see other parentheses).
 */
function clauseOf(query: string): string {
  let depth = 0;
  let quote: string | undefined;
  const refuse = (why: string) =>
    new RangeError(`query: ${why}; the clause is ANDed, in parentheses, with the pipeline filter`);
  for (let i = 0; i < query.length; i++) {
    const c = query[i];
    if (c === '\\') throw refuse('backslashes are not allowed');
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) throw refuse('a ")" closes a parenthesis it did not open');
    else if (c === '#' || /^(--|\/\*|\*\/)/.test(query.slice(i, i + 2))) throw refuse('comments are not allowed');
  }
  if (quote) throw refuse(`a ${quote} quote is not closed`);
  if (depth > 0) throw refuse('a "(" is not closed');
  return `(${query})`;
}

/** The visibility query of listPipelines (exported for tests and for `temporal workflow list -q`). */
export function buildListQuery(opts: ListPipelinesOptions = {}): string {
  const parts = [`WorkflowType = ${literal('type', PIPELINE_WORKFLOW_TYPE)}`];
  if (opts.status !== undefined) {
    if (!(LIST_STATUSES as readonly string[]).includes(opts.status)) {
      throw new RangeError(`status: one of ${LIST_STATUSES.join(', ')} (got ${JSON.stringify(opts.status)})`);
    }
    parts.push(`ExecutionStatus = '${EXECUTION_STATUS[opts.status]}'`);
    // States a running pipeline shows in ReelflowStatus (tenants: docs/tenants.md).
    if (['waiting-operator', 'stuck', 'queued', 'waiting-budget'].includes(opts.status)) {
      parts.push(`${STATUS.name} = '${opts.status}'`);
    }
  }
  if (opts.stage !== undefined) {
    if (!(LIST_STAGES as readonly string[]).includes(opts.stage)) {
      throw new RangeError(`stage: one of ${LIST_STAGES.join(', ')} (got ${JSON.stringify(opts.stage)})`);
    }
    parts.push(`${STAGE.name} = '${opts.stage}'`);
  }
  if (opts.vendorTaskId !== undefined)
    parts.push(`${VENDOR_TASK_IDS.name} = ${literal('vendorTaskId', opts.vendorTaskId)}`);
  if (opts.batchId !== undefined) parts.push(`${BATCH.name} = ${literal('batch', opts.batchId)}`);
  if (opts.tenant !== undefined) parts.push(`${TENANT.name} = ${literal('tenant', opts.tenant)}`);
  if (opts.taskQueue !== undefined) parts.push(`TaskQueue = ${literal('taskQueue', opts.taskQueue)}`);
  if (opts.query?.trim()) parts.push(clauseOf(opts.query.trim()));
  return parts.join(' AND ');
}

export interface PipelineSummary {
  workflowId: string;
  runId: string;
  /** Temporal's execution status, lowercased: running, completed, failed, cancelled, terminated, timed-out, continued-as-new, paused. */
  executionStatus: string;
  /** reelflow's own status and stage (search attributes), as last set by the workflow. */
  status?: string;
  stage?: string;
  vendorTaskIds: string[];
  /** The batch it was started in (`reelflow start --batch`). */
  batch?: string;
  /** Its tenant (ReelflowTenant), when it has one. */
  tenant?: string;
  taskQueue: string;
  startTime: string;
  closeTime?: string;
}

/** RUNNING → running, TIMED_OUT → timed-out, … (the vocabulary of `--status`). */
export function executionStatusName(name: string): string {
  return name.toLowerCase().replace(/_/g, '-');
}

export function summarizeExecution(info: WorkflowExecutionInfo): PipelineSummary {
  const sa = info.typedSearchAttributes;
  const summary: PipelineSummary = {
    workflowId: info.workflowId,
    runId: info.runId,
    executionStatus: executionStatusName(info.status.name),
    vendorTaskIds: sa.get(VENDOR_TASK_IDS) ?? [],
    taskQueue: info.taskQueue,
    startTime: info.startTime.toISOString(),
  };
  const status = sa.get(STATUS);
  const stage = sa.get(STAGE);
  if (status !== undefined) summary.status = status;
  if (stage !== undefined) summary.stage = stage;
  const batch = sa.get(BATCH);
  if (batch !== undefined) summary.batch = batch;
  const tenant = sa.get(TENANT);
  if (tenant !== undefined) summary.tenant = tenant;
  if (info.closeTime) summary.closeTime = info.closeTime.toISOString();
  return summary;
}

/** Lists pipelines from Temporal visibility (eventually consistent: a just-started one may lag a second). */
export async function listPipelines(client: Client, opts: ListPipelinesOptions = {}): Promise<PipelineSummary[]> {
  const query = buildListQuery(opts);
  const limit = opts.limit ?? 100;
  const out: PipelineSummary[] = [];
  if (limit <= 0) return out;
  for await (const info of client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
    out.push(summarizeExecution(info));
    if (out.length >= limit) break;
  }
  return out;
}
