/**
 * The pipelines of a chaos run (bench/chaos-run.ts): each started at its planned time and
 * watched to its end through server restarts and blinking connections; at the end, the
 * status query of every pipeline that did not complete. A pipeline that reuses an earlier
 * one's workflow id starts once that one has ended, so pipelines are kept by tag.
 */
import { setMaxListeners } from 'node:events';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/common';
import { statusQuery, type PipelineInput, type PipelineResult } from '../../src/contract/messages';
import type { OutcomeState, PipelineOutcome } from './chaos-invariants';
import type { PlannedPipeline } from './chaos-plan';

type VideoPipeline = (input: PipelineInput) => Promise<PipelineResult>;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function innermostMessage(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && (e as { cause?: unknown }).cause instanceof Error) e = (e as { cause: Error }).cause;
  return e instanceof Error ? e.message : String(e);
}

/** `fn` with a 20 s deadline per try, tried again every second until `deadline`. */
export async function retrying<T>(
  client: Client,
  what: string,
  fn: () => Promise<T>,
  deadline = Date.now() + 120_000,
): Promise<T> {
  for (;;) {
    try {
      return await client.withDeadline(Date.now() + 20_000, fn);
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${innermostMessage(err)}`);
      await sleep(1_000);
    }
  }
}

function failedState(err: WorkflowFailedError): OutcomeState {
  const c = err.cause;
  if (c instanceof TerminatedFailure) return 'terminated';
  if (c instanceof CancelledFailure) return 'cancelled';
  if (c instanceof TimeoutFailure) return 'timed-out';
  return 'failed';
}

export class PipelineWatch {
  /** By tag. */
  readonly handles = new Map<string, WorkflowHandle<VideoPipeline>>();
  /** By tag. */
  readonly outcomes = new Map<string, PipelineOutcome>();
  /** The run chain each started pipeline is, by tag: its workflow id and first run id. */
  readonly chains = new Map<string, { workflowId: string; firstRunId?: string }>();
  /** The tag of the pipeline started last under each workflow id. */
  private readonly current = new Map<string, string>();
  /** Aborted when the run ends (all done, or the timeout): watching stops. */
  readonly abort = new AbortController();

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly plan: PlannedPipeline[],
    /** The run's start: planned start times count from here. */
    private readonly t0: number,
    private readonly log: (line: string) => void,
  ) {
    // Every watched pipeline listens, and the client adds one per long poll of a result
    // (a run past a minute polls again): unbounded by design, so no leak warning.
    setMaxListeners(0, this.abort.signal);
  }

  /** Pipelines in the plan. */
  get planned(): number {
    return this.plan.length;
  }

  allDone(): boolean {
    return this.outcomes.size === this.plan.length;
  }

  /** Started and not yet terminal. */
  inFlight(): number {
    return [...this.handles.keys()].filter((id) => !this.outcomes.has(id)).length;
  }

  /** Starts each pipeline at its time (`startAtMs[i]` for plan[i]); resolves when every one has an outcome. */
  async watchAll(startAtMs: number[]): Promise<void> {
    await Promise.all(this.plan.map((p, i) => this.startAndWatch(p, startAtMs[i])));
  }

  /** The pipeline now running under `workflowId` (the last started there), if it is one of this run's. */
  byWorkflowId(workflowId: string): { handle: WorkflowHandle<VideoPipeline>; firstRunId?: string } | undefined {
    const tag = this.current.get(workflowId);
    const handle = tag === undefined ? undefined : this.handles.get(tag);
    return handle && { handle, firstRunId: this.chains.get(tag!)?.firstRunId };
  }

  private async startAndWatch(p: PlannedPipeline, startAtMs: number): Promise<void> {
    const base = { index: p.index, tag: p.tag, workflowId: p.workflowId };
    const wait = this.t0 + startAtMs - Date.now();
    if (wait > 0) await sleep(wait);
    if (p.reuses !== undefined && !(await this.ended(p.reuses))) {
      this.outcomes.set(p.tag, { ...base, state: 'not-finished', error: `not started: ${p.reuses} never ended` });
      return;
    }
    const startedAt = Date.now();
    let handle: WorkflowHandle<VideoPipeline>;
    try {
      handle = await this.start(p);
    } catch (err) {
      this.log(`chaos: could not start ${p.workflowId}: ${innermostMessage(err)}`);
      this.outcomes.set(p.tag, { ...base, state: 'not-finished', error: `not started: ${innermostMessage(err)}` });
      return;
    }
    this.handles.set(p.tag, handle);
    this.current.set(p.workflowId, p.tag);
    this.chains.set(p.tag, { workflowId: p.workflowId, firstRunId: await this.firstRunIdOf(handle) });
    if (p.reuses) this.log(`chaos: ${p.tag} started under ${p.reuses}'s workflow id ${p.workflowId}, which has ended`);
    this.outcomes.set(p.tag, await this.endOf(handle, base, startedAt));
  }

  /** Resolves true once the pipeline `tag` has an outcome; false when the run ends first. */
  private async ended(tag: string): Promise<boolean> {
    while (!this.outcomes.has(tag)) {
      if (this.abort.signal.aborted) return false;
      await sleep(200);
    }
    return true;
  }

  /** The first run id of a started pipeline: the start's answer, or the server's (a start retried). */
  private async firstRunIdOf(handle: WorkflowHandle<VideoPipeline>): Promise<string | undefined> {
    const known = (handle as { firstExecutionRunId?: string }).firstExecutionRunId;
    if (known) return known;
    const d = await retrying(this.client, `describe ${handle.workflowId}`, () => handle.describe()).catch(
      () => undefined,
    );
    return d?.raw.workflowExecutionInfo?.firstRunId ?? undefined;
  }

  private start({ workflowId, definition }: PlannedPipeline): Promise<WorkflowHandle<VideoPipeline>> {
    const { client, taskQueue } = this;
    return retrying(client, `start ${workflowId}`, () =>
      client.workflow
        .start<VideoPipeline>('videoPipeline', { taskQueue, workflowId, args: [{ definition }] })
        // A retry after a start whose answer was lost: the pipeline runs already.
        .catch((err: unknown) => {
          if (err instanceof WorkflowExecutionAlreadyStartedError)
            return client.workflow.getHandle<VideoPipeline>(workflowId);
          throw err;
        }),
    );
  }

  /** Its end: completed, failed (or terminated, cancelled, timed out), or not finished when the run ends first. */
  private async endOf(
    handle: WorkflowHandle<VideoPipeline>,
    base: Pick<PipelineOutcome, 'index' | 'tag' | 'workflowId'>,
    startedAt: number,
  ): Promise<PipelineOutcome> {
    const { signal } = this.abort;
    while (!signal.aborted) {
      try {
        const result = await this.client.withAbortSignal(signal, () => handle.result());
        return { ...base, state: 'completed', result, durationMs: Date.now() - startedAt };
      } catch (err) {
        if (err instanceof WorkflowFailedError) {
          return { ...base, state: failedState(err), error: innermostMessage(err), durationMs: Date.now() - startedAt };
        }
        if (signal.aborted) break;
        await sleep(1_000); // the server is restarting, or the connection blinked
      }
    }
    return { ...base, state: 'not-finished' };
  }

  /** Failed pipelines report their task ids only through the status query: read it for each that did not complete. */
  async readFinalStatuses(): Promise<void> {
    for (const o of this.outcomes.values()) {
      if (o.state === 'completed') continue;
      try {
        const handle = this.handles.get(o.tag);
        if (handle)
          o.status = await retrying(
            this.client,
            `status of ${o.workflowId}`,
            () => handle.query(statusQuery),
            Date.now() + 60_000,
          );
      } catch (err) {
        this.log(`chaos: no final status for ${o.workflowId}: ${innermostMessage(err)}`);
      }
    }
  }

  /** A shared server keeps what it runs: leave nothing of ours running there. */
  async terminateUnfinished(): Promise<void> {
    for (const p of this.plan) {
      if (this.outcomes.get(p.tag)!.state === 'not-finished')
        await this.handles
          .get(p.tag)
          ?.terminate('chaos run ended')
          .catch(() => undefined);
    }
  }
}
