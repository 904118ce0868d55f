/**
 * The tenant gate's activities (docs/tenants.md, "Concurrency limits"): a pipeline asks its
 * tenant's gate for a slot by signal-with-start (a workflow can signal, not start, another),
 * and the gate asks which of its holders have closed without giving their slot back
 * (terminated, timed out: no workflow code runs then). With the worker's Temporal client.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';
import { acquireSlotSignal, gateWorkflowId, GATE_WORKFLOW_TYPE, type AcquireSlot } from '../contract/tenant-gate';

export interface AskSlotInput {
  tenant: string;
  /** The pipeline's task queue: a gate started by this ask runs there. */
  taskQueue: string;
  request: AcquireSlot;
}

/** `codecStrict`: this worker's codec refuses plaintext; a gate this ask starts is told so in its input. */
export function createGateActivities(codecStrict = false) {
  return {
    /** Idempotent: the gate keeps one entry per pipeline id, so a retry neither adds nor loses one. */
    askSlot: async ({ tenant, taskQueue, request }: AskSlotInput): Promise<void> => {
      await Context.current().client.workflow.signalWithStart(GATE_WORKFLOW_TYPE, {
        workflowId: gateWorkflowId(tenant),
        taskQueue,
        args: [codecStrict ? { codecStrict: true } : {}],
        signal: acquireSlotSignal,
        signalArgs: [request],
      });
    },
    /** Of these pipeline ids, those whose latest run is no longer running (or is gone). */
    closedSlotHolders: async (ids: string[]): Promise<string[]> => {
      const client = Context.current().client;
      const closed: string[] = [];
      for (const id of ids) {
        try {
          const d = await client.workflow.getHandle(id).describe();
          if (d.status.name !== 'RUNNING') closed.push(id);
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          closed.push(id);
        }
      }
      return closed;
    },
  };
}
