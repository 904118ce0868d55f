/**
 * The OPERATOR of a chaos run (bench/chaos-run.ts), for pipelines that wait on an ambiguous
 * create: it looks the task up in the vendor's records by the child workflow's callback
 * URL, and resolves with its id, or `resubmit` when none exists.
 */
import type { Client } from '@temporalio/client';
import type { InspectionSnapshot } from '../../src/emulator/inspection';
import {
  resolveCreateUpdate,
  statusQuery,
  type CreateDecision,
  type PipelineStatus,
} from '../../src/contract/messages';
import { innermostMessage, sleep, type PipelineWatch } from './chaos-pipelines';
import type { EmulatorApi } from './chaos-stack';

export interface OperatorDecision {
  atMs: number;
  workflowId: string;
  stage: string;
  step: string;
  attempt: number;
  decision: 'taskId' | 'resubmit';
  taskId?: string;
  /** Tasks the search found for this step that the pipeline did not know about. */
  found: number;
}

type Waiting = NonNullable<PipelineStatus['waiting']>;

/**
 * What an operator does in the vendor console: find the tasks this step created that the
 * pipeline does not know, the one of this attempt first. A callback URL names the run chain
 * (its first run id): under a reused workflow id, the earlier pipeline's tasks are not this one's.
 */
export function tasksOfStep(status: PipelineStatus, w: Waiting, state: InspectionSnapshot, firstRunId?: string) {
  const prefix = `/callbacks/${encodeURIComponent(w.workflowId)}/${encodeURIComponent(w.step)}/`;
  const ofChain = (url: string) =>
    firstRunId === undefined || url.slice(url.indexOf(prefix) + prefix.length).split('/')[1] === firstRunId;
  const tasks: { id: string; url?: string }[] =
    w.stage === 'review'
      ? state.reviewTasks.map((t) => ({ id: t.taskId, url: t.callbackUrl }))
      : w.stage === 'generation'
        ? state.generationTasks.map((t) => ({ id: t.id, url: t.callbackUrl }))
        : w.stage === 'erase'
          ? state.eraseTasks.map((t) => ({ id: t.taskId, url: t.callbackUrl }))
          : [];
  const known = new Set(status.vendorTasks.map((t) => t.id));
  const found = tasks.filter((t) => t.url?.includes(prefix) && ofChain(t.url) && !known.has(t.id));
  const exact = found.find((t) => t.url!.includes(`${prefix}${w.attempt}/`)) ?? found[0];
  return { found, exact };
}

export class Operator {
  readonly decisions: OperatorDecision[] = [];
  /** Decisions the workflow did not take (the update failed); the pipeline is looked at again. */
  failedDecisions = 0;
  private readonly deciding = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly pipelines: PipelineWatch,
    private readonly emu: EmulatorApi,
    private readonly t0: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Every 2 s until the run ends: the waiting pipelines, each decided in the background. */
  async loop(): Promise<void> {
    const { pipelines } = this;
    while (!pipelines.allDone() && !pipelines.abort.signal.aborted) {
      await sleep(2_000);
      const waiting = await this.waiting();
      if (!waiting?.length) continue;
      let state: InspectionSnapshot;
      try {
        state = await this.emu<InspectionSnapshot>('state');
      } catch {
        continue;
      }
      for (const workflowId of waiting) {
        this.deciding.add(workflowId);
        void this.decide(workflowId, state).finally(() => this.deciding.delete(workflowId));
      }
    }
  }

  /** This run's pipelines that wait on the operator and are not being decided; undefined while the server restarts. */
  private async waiting(): Promise<string[] | undefined> {
    const waiting: string[] = [];
    try {
      const query = `TaskQueue = '${this.taskQueue}' AND ReelflowStatus = 'waiting-operator' AND ExecutionStatus = 'Running'`;
      for await (const wf of this.client.workflow.list({ query }))
        if (!this.deciding.has(wf.workflowId)) waiting.push(wf.workflowId);
    } catch {
      return undefined; // server restarting
    }
    return waiting.filter((id) => this.pipelines.byWorkflowId(id) !== undefined);
  }

  private async decide(workflowId: string, state: InspectionSnapshot): Promise<void> {
    const { client } = this;
    const { handle, firstRunId } = this.pipelines.byWorkflowId(workflowId)!;
    let status: PipelineStatus;
    try {
      status = await client.withDeadline(Date.now() + 15_000, () => handle.query(statusQuery));
    } catch {
      return;
    }
    const w = status.waiting;
    if (!w) return;
    const { found, exact } = tasksOfStep(status, w, state, firstRunId);
    const decision: CreateDecision = exact ? { taskId: exact.id } : { resubmit: true };
    try {
      await client.withDeadline(Date.now() + 30_000, () =>
        handle.executeUpdate(resolveCreateUpdate, { args: [{ step: w.step, decision }] }),
      );
    } catch (err) {
      this.failedDecisions += 1;
      this.log(`chaos: operator decision for ${workflowId} not taken (${innermostMessage(err)}); will look again`);
      return;
    }
    this.decisions.push({
      atMs: Date.now() - this.t0,
      workflowId,
      stage: w.stage,
      step: w.step,
      attempt: w.attempt,
      decision: exact ? 'taskId' : 'resubmit',
      ...(exact ? { taskId: exact.id } : {}),
      found: found.length,
    });
    this.log(
      `chaos: operator resolved ${workflowId} ${w.step}#${w.attempt}: ${exact ? `task ${exact.id}` : 'resubmit (no task found)'}`,
    );
  }
}
