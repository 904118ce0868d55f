/**
 * Where a pipeline's webhooks stand: each one's delivery workflow, described by its id.
 * pending (retrying: the attempt it is on and the last error), delivered (which attempt, the
 * HTTP status), failed (given up at the delivery timeout, or refused), not-started.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { WebhookRecord, WebhookResult } from '../../contract/messages';
import { failureChain } from './pipeline-client';

export interface WebhookDelivery extends WebhookRecord {
  state: 'pending' | 'delivered' | 'failed' | 'not-started';
  /** pending: the attempt under way or next; delivered: the one that succeeded. */
  attempt?: number;
  /** The endpoint's answer to the delivered attempt. */
  httpStatus?: number;
  lastError?: string;
}

async function deliveryOf(client: Client, record: WebhookRecord): Promise<WebhookDelivery> {
  if (record.startError) return { ...record, state: 'not-started', lastError: record.startError };
  const handle = client.workflow.getHandle(record.workflowId);
  let d;
  try {
    d = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { ...record, state: 'not-started', lastError: 'not found' };
    throw err;
  }
  if (d.status.name === 'RUNNING') {
    const pending = d.raw.pendingActivities?.[0];
    const lastError = pending?.lastFailure?.message ?? undefined;
    return { ...record, state: 'pending', attempt: pending?.attempt ?? 1, ...(lastError ? { lastError } : {}) };
  }
  if (d.status.name === 'COMPLETED') {
    const r = (await handle.result()) as WebhookResult;
    return { ...record, state: 'delivered', attempt: r.attempt, httpStatus: r.status };
  }
  const lastError = await handle.result().then(
    () => d.status.name,
    (err: unknown) => failureChain(err).slice(-1)[0] ?? d.status.name,
  );
  return { ...record, state: 'failed', lastError };
}

/** The delivery state of every webhook a pipeline started (its status's `notifications`). */
export function webhookDeliveries(client: Client, records: readonly WebhookRecord[]): Promise<WebhookDelivery[]> {
  return Promise.all(records.map((r) => deliveryOf(client, r)));
}

/** One line per webhook, for `reelflow status`. */
export function renderWebhookDeliveries(deliveries: readonly WebhookDelivery[]): string[] {
  return deliveries.map((n) => {
    const bits = [
      n.attempt !== undefined ? `attempt ${n.attempt}` : undefined,
      n.httpStatus !== undefined ? `HTTP ${n.httpStatus}` : undefined,
      n.lastError ? `last error: ${n.lastError}` : undefined,
    ].filter(Boolean);
    return `  webhook ${n.event}: ${n.state}${bits.length ? ` (${bits.join('; ')})` : ''} · ${n.workflowId}`;
  });
}
