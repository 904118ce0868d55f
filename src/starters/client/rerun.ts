/**
 * Rerun: a new pipeline with an earlier pipeline's definition that reuses its finished
 * stage outputs (reviewed Asset:// addresses, assets, the generation task, the erase task),
 * so no paid vendor task is created again for them. The outputs come from the `outputs`
 * query, which a completed, failed or cancelled pipeline answers alike (a worker replays it);
 * the new run names the earlier RUN and reads them from it again itself. A paid task the
 * earlier run left that may still succeed is adopted, or the rerun refused (src/contract/reuse-rule.ts).
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { lastRunOfChain } from '../../contract/run-chain';
import { parseDefinition, type PipelineDefinition } from '../../definition/definition';
import { expiredReuse } from '../../contract/expiry';
import { sourceTaskRule } from '../../contract/reuse-rule';
import { STAGES } from '../../contract/stages';
import {
  outputsQuery,
  type ReusedOutputs,
  type PipelineResult,
  type PipelineReuse,
  type StageName,
  type VendorTaskRecord,
} from '../../contract/messages';
import { definedStages, startPipeline, type PipelineHandle } from './pipeline-client';

/** Where a rerun may start: a stage, or the archive (which downloads the outputs again). */
/** Every stage (the stage table's), then the archive step. */
export const RERUN_FROM: readonly RerunFrom[] = [...STAGES, 'archive'];
export type RerunFrom = StageName | 'archive';

export type RerunRefusal = 'running' | 'all-finished' | 'not-finished' | 'not-defined' | 'expired' | 'task-running';

/** Why a rerun was not started (nothing was started). */
export class RerunRefusedError extends Error {
  override readonly name = 'RerunRefusedError';
  constructor(
    message: string,
    readonly reason: RerunRefusal,
    readonly pipelineId: string,
    /** The reused output at fault, e.g. "generation.videoUrl". */
    readonly output?: string,
    /** `task-running`: the earlier run's task that may still succeed. */
    readonly task?: { id: string; step: string; state?: string },
  ) {
    super(message);
  }
}

export interface RerunPlan {
  from: RerunFrom;
  /** The stages whose outputs are reused (every finished one before `from`). */
  reused: StageName[];
  reuse: PipelineReuse;
  /** Tasks of the earlier run that may still succeed, which the new run adopts (polls, never creates again). */
  adopts: VendorTaskRecord[];
}

/** The earlier pipeline's run: its workflow id and run id (an id can be reused). */
export interface RerunSource {
  pipelineId: string;
  runId: string;
}

/** The steps a definition runs, in order: its stages, then the archive when on. */
function stepsOf(def: PipelineDefinition): RerunFrom[] {
  return [...definedStages(def), ...(def.options.archive ? (['archive'] as const) : [])];
}

/** A step's output exists: a stage's result, or every video the definition makes archived. */
function finished(def: PipelineDefinition, result: PipelineResult, step: RerunFrom): boolean {
  if (step !== 'archive') return result[step] !== undefined;
  const names = result.archived.map((f) => f.name);
  const wanted = [def.generation ? 'generated' : '', def.erase ? 'erased' : ''].filter(Boolean);
  return wanted.every((w) => names.some((n) => n.startsWith(w)));
}

/**
 * Which outputs a rerun from `from` reuses (default: the first step that did not finish),
 * or why it cannot: a step before `from` did not finish, an output it needs expired, or a
 * task the earlier run left may still succeed and `from` would redo its inputs.
 * Pure; `nowMs` is the clock the expiry is checked against.
 */
export function planRerun(
  source: RerunSource,
  def: PipelineDefinition,
  result: PipelineResult,
  from?: RerunFrom,
  nowMs = Date.now(),
): RerunPlan {
  const { pipelineId } = source;
  const steps = stepsOf(def);
  const refuse = (message: string, reason: RerunRefusal, output?: string) =>
    new RerunRefusedError(message, reason, pipelineId, output);
  if (from !== undefined && !steps.includes(from)) {
    throw refuse(
      `from: the definition of ${pipelineId} has no ${from} step (it has ${steps.join(', ')})`,
      'not-defined',
    );
  }
  const start = from ?? steps.find((s) => !finished(def, result, s));
  if (start === undefined) {
    throw refuse(
      `every step of ${pipelineId} finished; name the one to redo with --from (${steps.join(', ')})`,
      'all-finished',
    );
  }
  const before = steps.slice(0, steps.indexOf(start));
  const missing = before.find((s) => !finished(def, result, s));
  if (missing) {
    throw refuse(
      `${missing} of ${pipelineId} did not finish, so there is no output to reuse; rerun --from ${missing} or earlier`,
      'not-finished',
    );
  }
  const reused = before.filter((s): s is StageName => s !== 'archive');
  checkExpiry(source, def, result, reused, nowMs);
  const rule = sourceTaskRule(pipelineId, definedStages(def), reused, result.vendorTasks);
  if (rule.refusal) {
    const { id, step, state } = rule.refusal.task;
    throw new RerunRefusedError(rule.refusal.message, 'task-running', pipelineId, undefined, { id, step, state });
  }
  const reuse: PipelineReuse = { fromPipelineId: pipelineId, fromRunId: source.runId, stages: reused };
  return { from: start, reused, reuse, adopts: rule.adopt };
}

/** Refuses a rerun whose reused generated video URL expired (or nearly) before erase or the archive uses it. */
function checkExpiry(
  { pipelineId }: RerunSource,
  def: PipelineDefinition,
  result: PipelineResult,
  reused: StageName[],
  nowMs: number,
): void {
  const outputs: ReusedOutputs = { fromPipelineId: pipelineId };
  for (const s of reused) Object.assign(outputs, { [s]: result[s] });
  const expired = expiredReuse(outputs, { erase: def.erase && !outputs.erase, archive: def.options.archive }, nowMs);
  if (expired) {
    throw new RerunRefusedError(
      `${expired.output} of ${pipelineId} expired at ${expired.expiresAt} (${expired.why}); rerun --from generation`,
      'expired',
      pipelineId,
      expired.output,
    );
  }
}

export interface RerunOptions {
  /** The step to redo (and everything after it); default: the first that did not finish. */
  from?: RerunFrom;
  /** The new pipeline's workflow id (default reelflow-<name>-<random>). */
  workflowId?: string;
  /** Default: the earlier pipeline's task queue. */
  taskQueue?: string;
  /** Tags the rerun with this batch and refuses its id if already used (as a batch start: startPipeline). */
  batchId?: string;
  /** Bound on the `outputs` query (default 30 s): a worker must replay the earlier pipeline. */
  queryTimeoutMs?: number;
  /**
   * The earlier run (default: the pipeline's latest). A run that continued as new stands for
   * its chain's last run, which holds every task the chain created (src/contract/run-chain.ts).
   */
  runId?: string;
  /** Memo of the new pipeline (startPipeline's). */
  memo?: Record<string, unknown>;
}

const CLOSE_EVENT = temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;

/** The run that a run which continued as new started (its close event names it), described. */
async function nextOfChain(client: Client, pipelineId: string, runId: string): Promise<WorkflowExecutionDescription> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: pipelineId, runId },
    historyEventFilterType: CLOSE_EVENT,
  });
  const next = history?.events?.[0]?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  if (!next) throw new Error(`run ${runId} of ${pipelineId} continued as new, but its close event names no next run`);
  return client.workflow.getHandle(pipelineId, next).describe();
}

/** The run a rerun reads: the named one (or the latest), or its chain's last run when it continued as new. */
async function sourceRun(client: Client, pipelineId: string, runId?: string): Promise<WorkflowExecutionDescription> {
  const named = await client.workflow.getHandle(pipelineId, runId).describe();
  const last = await lastRunOfChain(named, (r) => nextOfChain(client, pipelineId, r.runId));
  if (last.status.name === 'RUNNING') {
    const chain =
      last.runId === named.runId ? '' : ` (run ${last.runId}, the last of the chain run ${named.runId} continued into)`;
    throw new RerunRefusedError(
      `${pipelineId} is still running${chain}; wait for it to end (or cancel it) before rerunning it`,
      'running',
      pipelineId,
    );
  }
  return last;
}

/**
 * Starts a new pipeline with the definition of `pipelineId` that reuses its finished
 * outputs before `from`, read from its latest run or `opts.runId` (a continued run: its
 * chain's last). Throws RerunRefusedError (nothing started) while it still runs, when a
 * step before `from` did not finish, or when a reused URL has expired.
 */
export async function rerunPipeline(
  client: Client,
  pipelineId: string,
  opts: RerunOptions = {},
): Promise<RerunPlan & { handle: PipelineHandle }> {
  const described = await sourceRun(client, pipelineId, opts.runId);
  // That exact run from here on: a new run under the same id must not answer for it.
  const earlier = client.workflow.getHandle(pipelineId, described.runId);
  const deadline = Date.now() + (opts.queryTimeoutMs ?? 30_000);
  const outputs = await client
    .withDeadline(deadline, () => earlier.query(outputsQuery))
    .catch((err: unknown) => {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(
        `the outputs query of ${pipelineId} was not answered (${why}): is a reelflow worker running on task queue "${described.taskQueue}"?`,
        { cause: err },
      );
    });
  const source = { pipelineId, runId: described.runId };
  const plan = planRerun(source, parseDefinition(outputs.definition), outputs.result, opts.from);
  const handle = await startPipeline(client, outputs.definition, {
    taskQueue: opts.taskQueue ?? described.taskQueue,
    ...(opts.workflowId !== undefined ? { workflowId: opts.workflowId } : {}),
    ...(opts.batchId !== undefined ? { batchId: opts.batchId } : {}),
    reuse: plan.reuse,
    ...(opts.memo ? { memo: opts.memo } : {}),
  });
  return { ...plan, handle };
}
