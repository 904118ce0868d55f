/**
 * What the `status` query answers: a pipeline's stages, its vendor tasks, the operator
 * decision it waits for, and the webhooks it handed on. Plain data, read by the CLI, the
 * receiver and the metrics, and carried across continue-as-new (carry.ts).
 */
import type { PriorityLevel } from '../definition/schema';
import type { StageName, VendorTaskKind } from './stages';

// Declared once, in the stage table (docs/architecture.md, "How to add a stage").
export { STAGES, type StageName, type VendorTaskKind } from './stages';

/** Every vendor task id is recorded the moment it is known. */
export interface VendorTaskRecord {
  kind: VendorTaskKind;
  id: string;
  /** e.g. "generation", "review-b0", "asset-hero" */
  step: string;
  attempt: number;
  state?: string;
  /** How we learned the id: create response, reconcile by name, callback, or operator. */
  via: 'create' | 'reconcile-name' | 'callback' | 'operator' | 'existing';
  /** True for a task of a superseded attempt that may still run (and cost) at the vendor. */
  orphan?: boolean;
  /** When the pipeline learned the id (ISO, workflow time). */
  recordedAt?: string;
}

export interface PendingDecision {
  /** The pipeline workflow that waits. */
  workflowId: string;
  stage: StageName;
  step: string;
  attempt: number;
  reason: string;
  since: string; // ISO time
}

export type StageState = 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'cancelled';

export interface StageStatus {
  state: StageState;
  startedAt?: string;
  endedAt?: string;
  progress?: { done: number; total: number };
  detail?: string;
  /** The earlier pipeline whose output this stage reuses (`rerun`): done without running. */
  reusedFrom?: string;
}

/**
 * `queued`: waiting for a slot of its tenant's concurrency limit, before any vendor call;
 * `waiting-budget`: a paid create waits for its tenant's budget (docs/tenants.md).
 */
export type PipelineState =
  'queued' | 'running' | 'waiting-operator' | 'waiting-budget' | 'stuck' | 'completed' | 'failed' | 'cancelled';

/** A pipeline in this state has ended: no stage runs any more. */
export function pipelineEnded(state: PipelineState): boolean {
  return state === 'completed' || state === 'failed' || state === 'cancelled';
}

export interface PipelineStatus {
  pipelineId: string;
  state: PipelineState;
  stage: StageName | 'archive' | 'done';
  stages: Record<StageName, StageStatus>;
  vendorTasks: VendorTaskRecord[];
  waiting?: PendingDecision;
  /** Vendor calls made so far, by endpoint (e.g. "generation.get"). */
  calls: Record<string, number>;
  error?: string;
  /** Webhooks this pipeline started delivering (options.notify), each in its own workflow. */
  notifications?: WebhookRecord[];
  /** The tenant it runs as and the priority it got (docs/tenants.md); absent when tenants are off. */
  tenant?: string;
  priority?: PriorityLevel;
  /**
   * Its tenant's concurrency slot (docs/tenants.md, "Concurrency limits"), where a limit applies:
   * asked for (`queued`), held (slot n of limit, carried across continue-as-new), or given back.
   */
  slot?: SlotStatus;
}

export interface SlotStatus {
  state: 'queued' | 'held' | 'released';
  limit: number;
  /** 1…limit, while held. */
  slot?: number;
  /** When it entered this state (ISO, workflow time). */
  since: string;
}

export type WebhookEventType =
  'pipeline.completed' | 'pipeline.failed' | 'pipeline.cancelled' | 'pipeline.waiting_operator';

/** One webhook the pipeline handed to its delivery workflow. */
export interface WebhookRecord {
  event: WebhookEventType;
  /** The delivery workflow: `<pipelineId>/notify/<key>`. */
  workflowId: string;
  /** The webhook-id header: `<pipelineId>:<key>`, the same on every attempt (receivers dedupe on it). */
  webhookId: string;
  /** Why the delivery workflow could not be started (e.g. one with its id is still running). */
  startError?: string;
}
