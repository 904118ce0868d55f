/**
 * `reelflow status <workflow-id> [--follow]`: the live status from the `status` query;
 * when no worker answers, what Temporal itself knows of the pipeline. Webhooks (options.notify)
 * are shown with their delivery state, read from their delivery workflows.
 */
import { WorkflowNotFoundError } from '@temporalio/common';
import { STAGE } from '../../../contract/search-attributes';
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { followWithDisplay, interrupted, printOutcome } from '../follow';
import { executionStatusName, failureChain, pipelineStatus } from '../../client/pipeline-client';
import { renderStatus } from '../../client/progress';
import { webhookDeliveries, renderWebhookDeliveries } from '../../client/webhooks';

export const status: CommandFn = async (ctx, session) => {
  const id = ctx.positionals[0];
  const client = await session.client();
  if (ctx.bool('follow')) {
    try {
      const outcome = await followWithDisplay(client, id, ctx.io, {
        json: ctx.json,
        ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
      });
      return printOutcome(ctx, outcome);
    } catch (err) {
      if (ctx.io.signal?.aborted) return interrupted(ctx, id);
      throw err;
    }
  }
  try {
    const current = await pipelineStatus(client, id, { timeoutMs: 10_000 });
    const notifications = await webhookDeliveries(client, current.notifications ?? []);
    const doc = notifications.length ? { ...current, notifications } : current;
    ctx.emit(doc, () => [...renderStatus(current), ...renderWebhookDeliveries(notifications)]);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw err;
    // No worker answered (or the workflow task failed): say what Temporal knows.
    const d = await client.workflow.getHandle(id).describe();
    const stage = d.typedSearchAttributes.get(STAGE);
    const doc = {
      pipelineId: id,
      executionStatus: executionStatusName(d.status.name),
      stage: stage ?? null,
      startTime: d.startTime.toISOString(),
      closeTime: d.closeTime?.toISOString() ?? null,
      statusQueryError: failureChain(err).slice(-1)[0],
    };
    ctx.emit(doc, () => [
      `${id}  ${doc.executionStatus}${stage ? ` · ${String(stage)}` : ''}`,
      `  (from Temporal: no worker answered the status query, so no stage details: ${doc.statusQueryError})`,
      `  is a reelflow worker running on task queue "${d.taskQueue}"?`,
    ]);
    return EXIT.ok;
  }
};
