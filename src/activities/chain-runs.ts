/**
 * A pipeline's run chain as the server holds it (docs/cli.md, "Rerun: reuse paid work"). A
 * chain is found by its first run, never by asking its workflow id for the latest run: once
 * the chain has ended, the id may already belong to another pipeline.
 */
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { lastRunOfChain } from '../contract/run-chain';

const CLOSE_EVENT = temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;

/** The run that a run which continued as new started, read from its close event, described. */
export async function continuedRun(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<WorkflowExecutionDescription> {
  const { namespace } = client.options;
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace,
    execution: { workflowId, runId },
    historyEventFilterType: CLOSE_EVENT,
  });
  const next = history?.events?.[0]?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  if (!next) throw new Error(`run ${runId} of ${workflowId} continued as new, but its close event names no next run`);
  return client.workflow.getHandle(workflowId, next).describe();
}

/** gRPC NOT_FOUND (5) or INVALID_ARGUMENT (3, e.g. a run id that is no UUID): no such run. */
export function noSuchRun(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true;
  const code = (err as { code?: unknown; cause?: { code?: unknown } } | null)?.cause?.code;
  return code === 5 || code === 3;
}

/** The last run of the chain that `firstRunId` starts; undefined when the server has no such chain. */
export async function describeChainEnd(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<WorkflowExecutionDescription | undefined> {
  try {
    const first = await client.workflow.getHandle(workflowId, firstRunId).describe();
    if (first.raw.workflowExecutionInfo?.firstRunId !== firstRunId) return undefined;
    return await lastRunOfChain(first, (r) => continuedRun(client, workflowId, r.runId));
  } catch (err) {
    if (noSuchRun(err)) return undefined;
    throw err;
  }
}
