/**
 * Rerun by run: the reused outputs are read from the source run itself,
 * named by workflow id and run id, through the `readReuseSource` activity; the input names
 * only the run and the stages. The source's tasks that may still succeed are adopted or the
 * rerun is refused (src/contract/reuse-rule.ts), so a raw start that skips `planRerun` never pays twice.
 */
import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { ReelflowActivities } from '../../../activities';
import { FailureType } from '../../../failures';
import { STAGES, type ReusedOutputs, type PipelineReuse, type VendorTaskRecord } from '../../../contract/messages';
import { messageOf, stageFailure } from '../failures';
import type { PipelineRuntime } from '../pipeline-runtime';
import { sourceTaskRule } from '../../../contract/reuse-rule';
import { isRunId } from '../../../contract/run-chain';

const reading = proxyActivities<ReelflowActivities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', maximumAttempts: 3, nonRetryableErrorTypes: [FailureType.ReuseRefused] },
});

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** The first field of a by-run reuse that cannot be used, or undefined. */
export function reuseRefIssue(reuse: Partial<PipelineReuse> & Partial<ReusedOutputs>): string | undefined {
  if (!isText(reuse.fromPipelineId)) return "fromPipelineId: the earlier pipeline's id is required";
  if (!isRunId(reuse.fromRunId)) {
    return "fromRunId: the earlier pipeline's run id is required (ids can be reused); the outputs are read from that run";
  }
  const inline = STAGES.find((s) => reuse[s] !== undefined);
  if (inline) {
    return `${inline}: outputs are not taken from the input; name the run they come from in reuse.fromRunId and the stages in reuse.stages`;
  }
  const { stages } = reuse;
  if (!Array.isArray(stages) || stages.some((s) => !STAGES.includes(s))) {
    return `stages: a list of stages to reuse (${STAGES.join(', ')})`;
  }
  return undefined;
}

export interface SourceOutputs {
  outputs: ReusedOutputs;
  adopt: VendorTaskRecord[];
}

/** The reused outputs read from the source run, and its tasks this run adopts; refuses what cannot be reused. */
export async function fromSourceRun(rt: PipelineRuntime, reuse: PipelineReuse): Promise<SourceOutputs> {
  const bad = reuseRefIssue(reuse);
  if (bad) throw ApplicationFailure.nonRetryable(`reuse.${bad}`, FailureType.InvalidDefinition);
  const { fromPipelineId: from, fromRunId } = reuse;
  const run = `run ${fromRunId} of ${from}`;
  const summary = `rerun: read the outputs of ${run}`;
  const source = await reading.readReuseSource
    .executeWithOptions({ startToCloseTimeout: '60s', summary }, [{ workflowId: from, runId: fromRunId }])
    .catch((err: unknown) => {
      if (isCancellation(err)) throw err;
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === FailureType.ReuseRefused) {
        throw stageFailure(cause.message, FailureType.ReuseRefused, { fromPipelineId: from, fromRunId });
      }
      throw stageFailure(
        `reuse: the outputs of ${run} could not be read (${messageOf(err)})`,
        FailureType.ReuseRefused,
      );
    });
  const defined = STAGES.filter((s) => rt.board.status.stages[s].state !== 'skipped');
  const stages = reuse.stages.filter((s) => defined.includes(s));
  const missing = stages.find((s) => source.result[s] === undefined);
  if (missing) {
    throw stageFailure(
      `reuse.stages: ${missing} of ${run} did not finish, so there is no output to reuse`,
      FailureType.ReuseRefused,
    );
  }
  const rule = sourceTaskRule(from, defined, stages, source.result.vendorTasks ?? []);
  if (rule.refusal) {
    const { id, state, step } = rule.refusal.task;
    throw stageFailure(rule.refusal.message, FailureType.ReuseRefused, { taskId: id, state, step, fromRunId });
  }
  const outputs: ReusedOutputs = { fromPipelineId: from };
  for (const s of stages) Object.assign(outputs, { [s]: source.result[s] });
  return { outputs, adopt: rule.adopt };
}
