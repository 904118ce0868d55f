/**
 * Rerun: what the source run of a `reuse` produced, read from that exact run (workflow id
 * AND run id: an id can be reused) by describe and its `outputs` query, which a closed
 * pipeline answers by replay. The new run takes its outputs from here, never from its own
 * input, so a raw start cannot point the archive or an erase at a URL of its choosing.
 */
import { Context } from '@temporalio/activity';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../failures';
import { outputsQuery, type PipelineResult } from '../contract/messages';
import { CONTINUED_AS_NEW, lastRunOfChain } from '../contract/run-chain';
import { continuedRun, noSuchRun } from './chain-runs';

/** The workflow type of a pipeline (src/starters/client/pipeline-client.ts names it for clients). */
const PIPELINE_TYPE = 'videoPipeline';

export interface ReuseSourceInput {
  workflowId: string;
  runId: string;
}

export interface ReuseSource {
  /** How the run closed, e.g. COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT. */
  status: string;
  /** Its result so far, with every vendor task it recorded (the definition is left out). */
  result: PipelineResult;
}

/** A closed pipeline answers by replay on a worker of its task queue. */
const QUERY_TIMEOUT_MS = 20_000;

const refused = (message: string) => ApplicationFailure.nonRetryable(message, FailureType.ReuseRefused);

/**
 * A source that continued as new misses the tasks its chain's later runs created (docs/cli.md,
 * "Rerun: reuse paid work"): refused, naming the chain's last run, so a raw `reuse` cannot create
 * them again.
 */
async function continuedSourceRefusal(workflowId: string, source: WorkflowExecutionDescription) {
  const { client } = Context.current();
  const last = await lastRunOfChain(source, (r) => continuedRun(client, workflowId, r.runId));
  const run = `run ${source.runId} of ${workflowId}`;
  const later = `continued as new, so the tasks of its chain's later runs are not in its outputs`;
  if (last.status.name === 'RUNNING') {
    return refused(
      `reuse.fromRunId: ${run} ${later}, and its chain still runs as run ${last.runId}; wait for it to end (or cancel it), then name that run`,
    );
  }
  return refused(
    `reuse.fromRunId: ${run} ${later}; name the chain's last run, ${last.runId} (\`reelflow rerun --run-id\` resolves a continued run to it)`,
  );
}

export function createReuseSourceActivities() {
  return {
    readReuseSource: async ({ workflowId, runId }: ReuseSourceInput): Promise<ReuseSource> => {
      const run = `run ${runId} of ${workflowId}`;
      const handle = Context.current().client.workflow.getHandle(workflowId, runId);
      const described = await handle.describe().catch((err: unknown) => {
        if (noSuchRun(err)) {
          throw refused(`reuse.fromRunId: ${run} is not found: past the namespace's retention, or unknown`);
        }
        throw err;
      });
      if (described.type !== PIPELINE_TYPE)
        throw refused(`reuse.fromRunId: ${run} is a ${described.type}, not a pipeline`);
      if (described.status.name === 'RUNNING') {
        throw refused(`reuse.fromRunId: ${run} is still running; wait for it to end (or cancel it) before reusing it`);
      }
      if (described.status.name === CONTINUED_AS_NEW) throw await continuedSourceRefusal(workflowId, described);
      // Bounded: a run on a task queue no worker serves is never answered (the activity retries).
      const { client } = Context.current();
      const outputs = await client.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => handle.query(outputsQuery));
      return { status: described.status.name, result: outputs.result };
    },
  };
}
