/**
 * confirmDeliveryOrigin: a delivery workflow (`notifyWebhook`) signs only an event of the pipeline
 * that started it. Anyone who may start workflows in the namespace can start notifyWebhook with any
 * input; without this check it would sign a made-up event with a profile's secret and POST it
 * anywhere. `workflowInfo().parent` names the parent but not its type, so this activity describes
 * the parent (which may be closed: the child is abandoned), checks that it is a videoPipeline, that
 * the child's ids follow the delivery scheme (`<pipelineId>/notify/<key>`, `<pipelineId>:<key>`),
 * that the target is the one the pipeline's definition names, and that the event agrees with the
 * pipeline's own status and result (a closed pipeline answers its queries by replay).
 * docs/webhooks.md, "Completion webhooks".
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';
import { FailureType } from '../failures';
import {
  outputsQuery,
  statusQuery,
  type PipelineStatus,
  type WebhookEvent,
  type WebhookEventType,
} from '../contract/messages';
import { stableJson } from './stable-json';

export interface WebhookOriginInput {
  /** workflowInfo().parent of the delivery workflow (set by the server, not by its input). */
  parent?: { workflowId: string; runId: string };
  webhookId: string;
  url?: string;
  secret?: string;
  event: WebhookEvent;
}

function refused(why: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `webhook event refused, nothing sent: ${why}`,
    type: FailureType.WebhookEventRefused,
    nonRetryable: true,
  });
}

/** The key of `<parentId>/notify/<key>` when both ids follow the scheme, else a refusal. */
function deliveryKey(childId: string, parentId: string, webhookId: string): string {
  const prefix = `${parentId}/notify/`;
  const key = childId.startsWith(prefix) ? childId.slice(prefix.length) : '';
  if (!key || webhookId !== `${parentId}:${key}`)
    throw refused(`delivery ids ${childId} / ${webhookId} do not follow <pipelineId>/notify/<key> of ${parentId}`);
  return key;
}

const ENDED: Partial<Record<PipelineStatus['state'], WebhookEventType>> = {
  completed: 'pipeline.completed',
  failed: 'pipeline.failed',
  cancelled: 'pipeline.cancelled',
};
const KNOWN_FAILURE_TYPES = new Set<string>(Object.values(FailureType));

/** The end event against the pipeline's status (and, for a completion, its result once closed). */
async function checkEnded(event: WebhookEvent, s: PipelineStatus, closedResult: () => Promise<unknown>) {
  const d = event.data;
  if (ENDED[s.state] !== event.type) throw refused(`the pipeline is ${s.state}, not the ${event.type} event`);
  if (d.state !== s.state || d.stage !== s.stage) throw refused('state or stage differ from the pipeline status');
  if (event.type !== 'pipeline.completed') {
    if (d.error !== s.error) throw refused('the error differs from the pipeline status');
    if (d.failureType !== undefined && !KNOWN_FAILURE_TYPES.has(d.failureType)) throw refused('unknown failure type');
    if (d.result !== undefined) throw refused('a result in a failure event');
    return;
  }
  if (d.error !== undefined || d.failureType !== undefined) throw refused('an error in a completion event');
  if (stableJson(d.result) !== stableJson(await closedResult()))
    throw refused("the result differs from the pipeline's own");
}

/** An operator wait: one the pipeline really waits or waited on. */
function checkWaiting(event: WebhookEvent, s: PipelineStatus, key: string, childId: string, parentId: string) {
  const w = event.data.waiting;
  const m = /^wait-(.+)-(\d+)$/.exec(key);
  if (event.type !== 'pipeline.waiting_operator' || !m || !w) throw refused(`event ${event.type} under key ${key}`);
  if (w.step !== m[1] || String(w.attempt) !== m[2] || w.workflowId !== parentId)
    throw refused('the wait does not match the delivery key');
  const current = s.waiting && stableJson(s.waiting) === stableJson(w);
  const recorded = (s.notifications ?? []).some((n) => n.workflowId === childId && n.event === event.type);
  if (!current && !recorded) throw refused(`the pipeline does not wait, nor waited, on ${w.step} attempt ${w.attempt}`);
}

export function createWebhookOriginActivities(opts: { defaultUrl?: string } = {}) {
  return {
    confirmDeliveryOrigin: async (input: WebhookOriginInput): Promise<void> => {
      const ctx = Context.current();
      const childId = ctx.info.workflowExecution?.workflowId ?? '';
      const parent = input.parent;
      if (!parent) throw refused('not started by a videoPipeline (no parent workflow)');
      const key = deliveryKey(childId, parent.workflowId, input.webhookId);
      if (input.event.data.pipelineId !== parent.workflowId) throw refused('the event names another pipeline');
      const handle = ctx.client.workflow.getHandle(parent.workflowId, parent.runId);
      const description = await handle.describe().catch((err: unknown) => {
        throw err instanceof WorkflowNotFoundError ? refused(`parent ${parent.workflowId} not found`) : err;
      });
      if (description.type !== 'videoPipeline')
        throw refused(`the parent is a ${description.type}, not a videoPipeline`);
      const [outputs, status] = [await handle.query(outputsQuery), await handle.query(statusQuery)];
      const notify = outputs.definition.options?.notify;
      const urlOk = input.url === notify?.url || (!notify && input.url === opts.defaultUrl);
      if (!urlOk || input.secret !== notify?.secret) throw refused("the target is not the pipeline definition's");
      if (key !== 'ended') return checkWaiting(input.event, status, key, childId, parent.workflowId);
      await checkEnded(input.event, status, async () => {
        if (description.status.name === 'RUNNING')
          throw ApplicationFailure.retryable('the pipeline has not closed yet', FailureType.WebhookPipelineNotClosed);
        return handle.result();
      });
    },
  };
}
