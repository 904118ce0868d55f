/**
 * Signals, queries, updates and the shapes they carry: defined once, imported by the
 * workflows, the worker, the callback receiver and every client (CLI, library).
 * Workflow-safe: no I/O here.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PipelineDefinitionInput } from '../definition/definition';
import type { RuntimeCarry } from './carry';
import type { ListedCost, ListedPriceKind } from './stages';
import type {
  PendingDecision,
  PipelineState,
  PipelineStatus,
  StageName,
  VendorTaskRecord,
  WebhookEventType,
} from './status';

// The status query's shapes live in their own file (the carry needs them too); every
// client imports them from here, with the messages that carry them.
export * from './status';

export interface ReviewItemResult {
  index: number; // position in definition.review.media
  sourceUrl: string;
  passed: boolean;
  assetUrl?: string; // Asset:// address, only when passed
  assetId?: string;
  downstreamFinalUrl?: string;
  errorCode?: string;
  errorMessage?: string;
}

export interface ReviewStageResult {
  batches: { taskId: string; status: string; size: number; assetType: string }[];
  items: ReviewItemResult[];
}

export interface AssetResult {
  name: string; // the definition's name
  vendorName: string; // the deterministic name at the vendor (embeds the idempotency key)
  assetId: string;
  assetUrl: string; // Asset://<id>
  status: string;
  signedUrl?: string;
  signedUrlFetchedAt?: string;
}

export interface AssetsStageResult {
  groupId: string;
  groupName?: string;
  groupCreated: boolean;
  items: AssetResult[];
}

export interface GenerationStageResult {
  taskId: string;
  videoUrl: string;
  /** The original URL is valid 24 h from generation (docs/vendor-contract.md). */
  videoUrlExpiresAt: string;
}

export interface EraseStageResult {
  taskId: string;
  videoUrl: string;
}

/** A pipeline output the worker downloaded into its archive folder (`options.archive`). */
export interface ArchivedFile {
  name: string;
  /**
   * Where the file is on the disk of the worker that archived it (under its
   * REELFLOW_ARCHIVE_DIR), not on the caller's machine: fetch it through that worker
   * (fetchArchivedFile, `reelflow archive get`; docs/library.md "Archived files"), or read
   * it from a volume the worker shares. `sha256` and `bytes` check a copy.
   */
  path: string;
  sha256: string;
  bytes: number;
  sourceUrl: string;
  /** The vendor task the file came from (the archive's key). */
  taskId?: string;
  /**
   * Set when the worker archived to an object store (REELFLOW_ARCHIVE_STORE; `path` is then
   * `s3://<bucket>/<key>`): the bucket and the object's key. A client downloads it by a GET it
   * presigns with its own credentials; no URL with a signature is ever kept here.
   */
  bucket?: string;
  key?: string;
}

export interface PipelineResult {
  pipelineId: string;
  vendorTasks: VendorTaskRecord[];
  review?: ReviewStageResult;
  assets?: AssetsStageResult;
  generation?: GenerationStageResult;
  erase?: EraseStageResult;
  archived: ArchivedFile[];
  /** Milliseconds per stage (workflow time). */
  timings: Partial<Record<StageName | 'archive', number>>;
  calls: Record<string, number>;
  /** Only where the spec gives a price (erase). */
  cost: Partial<Record<ListedPriceKind, ListedCost>>;
  /** Set by `rerun`: the stages whose outputs came from an earlier pipeline, not from vendor tasks of this one. */
  reused?: { fromPipelineId: string; fromRunId?: string; stages: StageName[] };
}

export interface PipelineInput {
  definition: PipelineDefinitionInput;
  /** Set only by the pipeline itself when it continues as new: what it had done so far. */
  resume?: PipelineResume;
  /** Set by `rerun`: the earlier run whose finished outputs are reused; their stages are not run again. */
  reuse?: PipelineReuse;
}

/**
 * Rerun: the earlier pipeline RUN whose finished outputs this one reuses. The new run reads
 * them from that run itself (its `outputs` query, through an activity), never from this
 * input; a vendor task it left running for a step redone here is adopted, not paid again.
 */
export interface PipelineReuse {
  fromPipelineId: string;
  /** The run: a workflow id can be reused by a later run. */
  fromRunId: string;
  /** The stages whose outputs are reused (each must have finished in that run). */
  stages: StageName[];
}

/**
 * The outputs a rerun reuses, as read from the source run (never taken from the input: a
 * start that puts them inline is refused, naming `reuse.fromRunId`).
 */
export interface ReusedOutputs {
  fromPipelineId: string;
  review?: ReviewStageResult;
  assets?: AssetsStageResult;
  generation?: GenerationStageResult;
  erase?: EraseStageResult;
}

/** What a pipeline has produced so far, and from which definition: what `rerun` reuses. */
export interface PipelineOutputs {
  definition: PipelineDefinitionInput;
  result: PipelineResult;
}

/** What a pipeline carries across continue-as-new: its status, Retry-After holds and finished outputs. */
export interface PipelineResume {
  runtime: RuntimeCarry;
  result: PipelineResult;
}

// ---- completion webhooks (options.notify)

/** A webhook's body (the Standard Webhooks payload shape: type, timestamp, data). */
export interface WebhookEvent {
  type: WebhookEventType;
  /** When it happened (ISO, workflow time); the same on every delivery attempt. */
  timestamp: string;
  data: {
    pipelineId: string;
    state: PipelineState;
    stage: PipelineStatus['stage'];
    /** pipeline.completed */
    result?: PipelineResult;
    /** pipeline.failed and pipeline.cancelled: what ended it. */
    error?: string;
    /** pipeline.failed: the stage failure's type (src/failures.ts), e.g. GenerationFailed. */
    failureType?: string;
    /** pipeline.waiting_operator: what the operator is asked about. */
    waiting?: PendingDecision;
  };
}

/** The delivery workflow's input. The signing secret is not in it: the worker holds it per profile. */
export interface WebhookInput {
  /** Absent: the worker's default URL (REELFLOW_NOTIFY_URL), resolved at send time so it stays out of history. */
  url?: string;
  webhookId: string;
  /** Credential profile whose signing secret signs the webhook (unless `secret` names the endpoint's own). */
  profile: string;
  /** The endpoint's own signing secret (options.notify.secret); absent: the profile's. */
  secret?: string;
  /** Carried by histories of earlier versions; ignored: only the worker's REELFLOW_NOTIFY_ALLOW_PRIVATE decides. */
  allowPrivateHosts?: boolean;
  /** Retries stop this long after the first attempt was scheduled. */
  deliveryTimeoutMs: number;
  event: WebhookEvent;
}

export interface WebhookResult {
  /** The endpoint's 2xx status. */
  status: number;
  /** Which attempt succeeded (1 = the first). */
  attempt: number;
}

/** Operator decision for a create whose outcome is ambiguous (policy `ask`). */
export type CreateDecision = { taskId: string } | { resubmit: true } | { abandon: true };
export interface ResolveCreateInput {
  /** Optional: defaults to the step that is waiting. */
  step?: string;
  decision: CreateDecision;
}
export interface ResolveCreateResult {
  stage: StageName;
  step: string;
  accepted: CreateDecision;
}

/** A vendor callback, as the receiver relays it: a hint, confirmed by one query. */
export interface VendorCallbackSignal {
  step: string;
  attempt: number;
  taskId?: string;
  status?: string;
  /** The pipeline's first run id the callback URL was made for (v2 URLs; absent for v1). */
  run?: string;
}

/**
 * What a stage does with a callback, asked by the receiver BEFORE it signals (a query
 * writes no history): `new` is worth a signal; `duplicate` (already had), `settled` (the
 * step is done), `mismatch` (names another task than this attempt's), `stale` (an
 * attempt this run does not know) and `passing` (a state the attempt's known task passes
 * through on the way to its end) are answered 204 without one; `limit` (the step's
 * signal or offer bound is reached) is answered 429.
 */
export type CallbackVerdict = 'new' | 'duplicate' | 'settled' | 'mismatch' | 'stale' | 'limit' | 'passing';

export const statusQuery = defineQuery<PipelineStatus>('status');
/** Answered in every state, a failed or cancelled pipeline too (by replay, while its history is kept). */
export const outputsQuery = defineQuery<PipelineOutputs>('outputs');
export const resolveCreateUpdate = defineUpdate<ResolveCreateResult, [ResolveCreateInput]>('resolveCreate');
export const vendorCallbackSignal = defineSignal<[VendorCallbackSignal]>('vendorCallback');
export const callbackVerdictQuery = defineQuery<CallbackVerdict, [VendorCallbackSignal]>('callbackVerdict');
/** Activities of GetAsset run on their own task queue, rate limited by the server. */
export function getAssetTaskQueue(taskQueue: string, profile: string): string {
  return `${taskQueue}.getasset.${profile}`;
}
export const DEFAULT_TASK_QUEUE = 'reelflow';
