/**
 * A pipeline's `resume` is honoured only when this run was started by a continue-as-new of the same
 * workflow: the carry skips finished stages and adopts "known" vendor task ids, so a forged one
 * (anyone who may start workflows can pass any input) would skip paid work or adopt another's task.
 * `continuedFromExecutionRunId` is also set by retries and cron runs, which a raw start can ask
 * for: an activity describes that run, and only a close as ContinuedAsNew with this run's own
 * workflow type counts. docs/security.md, "Raw workflow inputs: `resume`".
 */
import { ApplicationFailure, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { PreviousRunFacts, ReelflowActivities } from '../../activities';
import { FailureType } from '../../failures';

/** A local activity (one marker); a server hiccup is retried, never read as a forgery. */
const describing = proxyLocalActivities<ReelflowActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s', backoffCoefficient: 2 },
});

/** Why the previous run's facts do not show a continue-as-new of this workflow (undefined: they do). */
export function resumeProblem(facts: PreviousRunFacts, runId: string, workflowType: string): string | undefined {
  if (!facts.found) return `resume: the run it continues (${runId}) cannot be found (past the namespace's retention?)`;
  if (facts.workflowType !== workflowType) {
    return `resume: the run it continues (${runId}) is a ${facts.workflowType}, not a ${workflowType}`;
  }
  if (facts.status !== 'CONTINUED_AS_NEW') {
    return `resume: the run it continues (${runId}) closed as ${facts.status}, not by continue-as-new`;
  }
  return undefined;
}

/**
 * The failure of a `resume` no continue-as-new handed over; undefined when it did, or when
 * there is none. Call in the first workflow task.
 */
export async function refusedResume(resume: unknown): Promise<ApplicationFailure | undefined> {
  if (resume === undefined) return undefined;
  const info = workflowInfo();
  const runId = info.continuedFromExecutionRunId;
  const why =
    runId === undefined
      ? 'resume: set only by a pipeline that continues as new, and this run was started afresh'
      : resumeProblem(
          await describing.describePreviousRun({ workflowId: info.workflowId, runId }),
          runId,
          info.workflowType,
        );
  return why === undefined
    ? undefined
    : ApplicationFailure.create({ type: FailureType.InvalidDefinition, message: why, nonRetryable: true });
}
