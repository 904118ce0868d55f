/**
 * Completion webhooks (options.notify). Each event is delivered by a small workflow of its
 * own, `notifyWebhook`, started as a child the pipeline abandons when it closes: the
 * pipeline waits only for the child to start, so it ends on time and a down endpoint never
 * fails it. The child retries the signed POST until `deliveryTimeout` has passed. Ids are
 * deterministic and free of run ids: `<pipelineId>/notify/<key>` for the workflow and
 * `<pipelineId>:<key>` for the webhook-id header, so every attempt of an event shares them.
 * A terminated pipeline runs no code, so it sends nothing: cancel instead.
 */
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { PipelineDefinition } from '../definition/definition';
import { durationMs } from '../definition/refs';
import { FailureType } from '../failures';
import type { ReelflowActivities } from '../activities';
import type {
  WebhookRecord,
  WebhookInput,
  WebhookResult,
  PendingDecision,
  PipelineResult,
  WebhookEvent,
  WebhookEventType,
} from '../contract/messages';
import { messageOf } from './lib/failures';
import type { PipelineRuntime } from './lib/pipeline-runtime';

/**
 * Delivers one event: the activity retries (1 s doubling to 10 min) until the delivery timeout.
 * It first confirms, through an activity, that its parent is a videoPipeline whose own status
 * or result the event agrees with: a raw start of this workflow signs nothing.
 */
export async function notifyWebhook(input: WebhookInput): Promise<WebhookResult> {
  const { deliverWebhook, confirmDeliveryOrigin } = proxyActivities<ReelflowActivities>({
    startToCloseTimeout: '60s',
    scheduleToCloseTimeout: input.deliveryTimeoutMs,
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '10m',
      nonRetryableErrorTypes: [
        FailureType.WebhookAddressRefused,
        FailureType.MissingCredentialError,
        FailureType.WebhookEventRefused,
      ],
    },
    summary: `${input.event.type} for ${input.event.data.pipelineId}`,
  });
  const { parent } = workflowInfo();
  const { webhookId, url, secret, event } = input;
  await confirmDeliveryOrigin({
    ...(parent ? { parent: { workflowId: parent.workflowId, runId: parent.runId } } : {}),
    webhookId,
    ...(url !== undefined ? { url } : {}),
    ...(secret !== undefined ? { secret } : {}),
    event,
  });
  return deliverWebhook(input);
}

/** The first ApplicationFailure type in a failure's chain: the stage's own (e.g. GenerationFailed). */
function failureTypeOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof ApplicationFailure && e.type && e.type !== FailureType.PipelineFailed) return e.type;
  }
  return undefined;
}

type Target = Omit<WebhookInput, 'webhookId' | 'event'>;

/** The pipeline's webhooks: its end, and each operator wait that begins. */
export class WebhookSender {
  private constructor(
    private readonly rt: PipelineRuntime,
    private readonly target: Target,
  ) {}

  /** A sender when the definition asks for webhooks (options.notify); else undefined. */
  static of(rt: PipelineRuntime, def: PipelineDefinition): WebhookSender | undefined {
    const notify = def.options.notify;
    if (!notify) return undefined;
    // No url: the worker's default, resolved by the delivery activity (kept out of history).
    // Private targets are the worker's decision: the definition's allowPrivateHosts is not passed.
    return new WebhookSender(rt, {
      ...(notify.url !== undefined ? { url: notify.url } : {}),
      ...(notify.secret !== undefined ? { secret: notify.secret } : {}),
      profile: def.options.profile,
      deliveryTimeoutMs: durationMs(notify.deliveryTimeout),
    });
  }

  /** The pipeline ended: completed with `result`, else failed or cancelled by `err`. */
  async ended(result: PipelineResult | undefined, err?: unknown): Promise<void> {
    const s = this.rt.board.status;
    const type: WebhookEventType = result
      ? 'pipeline.completed'
      : isCancellation(err)
        ? 'pipeline.cancelled'
        : 'pipeline.failed';
    const failureType = result || isCancellation(err) ? undefined : failureTypeOf(err);
    await this.send('ended', type, {
      ...(result ? { result } : { error: s.error ?? messageOf(err) }),
      ...(failureType ? { failureType } : {}),
    });
  }

  async waiting(w: PendingDecision): Promise<void> {
    await this.send(`wait-${w.step}-${w.attempt}`, 'pipeline.waiting_operator', { waiting: w });
  }

  private async send(key: string, type: WebhookEventType, extra: Partial<WebhookEvent['data']>): Promise<void> {
    const s = this.rt.board.status;
    const pipelineId = workflowInfo().workflowId;
    const record: WebhookRecord = {
      event: type,
      workflowId: `${pipelineId}/notify/${key}`,
      webhookId: `${pipelineId}:${key}`,
    };
    const event: WebhookEvent = {
      type,
      timestamp: new Date().toISOString(),
      data: { pipelineId, state: s.state, stage: s.stage, ...extra },
    };
    // Started whole even while the pipeline is being cancelled; a failed start is shown, never thrown.
    await CancellationScope.nonCancellable(async () => {
      try {
        await startChild(notifyWebhook, {
          workflowId: record.workflowId,
          args: [{ ...this.target, webhookId: record.webhookId, event }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          staticSummary: `${type} → ${this.target.url === undefined ? "the worker's URL" : (/^https?:\/\/([^/?#]*)/i.exec(this.target.url)?.[1] ?? '?')}`,
        });
      } catch (err) {
        record.startError = messageOf(err);
        log.warn(`webhook ${type} not started: ${record.startError}`);
      }
    });
    (s.notifications ??= []).push(record);
  }
}
