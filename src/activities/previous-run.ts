/**
 * describePreviousRun: how the run a pipeline says it continues from really closed. A
 * pipeline's `resume` (the carry of a continue-as-new) is honoured only when that run of the
 * same workflow id closed as ContinuedAsNew: `continuedFromExecutionRunId` alone is also set
 * by retries and cron runs, which anyone who may start workflows can ask for, with any input.
 * Reads only, with the Temporal client the worker gives activities.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';

export interface PreviousRunInput {
  workflowId: string;
  runId: string;
}

export type PreviousRunFacts =
  | { found: false }
  | {
      found: true;
      /** The close status's name, e.g. CONTINUED_AS_NEW, COMPLETED, FAILED, RUNNING. */
      status: string;
      workflowType: string;
    };

export function createPreviousRunActivities() {
  return {
    describePreviousRun: async (input: PreviousRunInput): Promise<PreviousRunFacts> => {
      try {
        const d = await Context.current().client.workflow.getHandle(input.workflowId, input.runId).describe();
        return { found: true, status: d.status.name, workflowType: d.type };
      } catch (err) {
        // Past the namespace's retention, or never there: nothing shows it continued as new.
        if (err instanceof WorkflowNotFoundError) return { found: false };
        throw err;
      }
    },
  };
}
