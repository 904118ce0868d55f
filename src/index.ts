/**
 * reelflow as a library: start, watch and operate video pipelines from your own backend.
 *
 *   import { connectClient, runPipeline } from 'reelflow';
 *
 *   const { client, close } = await connectClient(); // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, … or a temporal.toml profile
 *   try {
 *     const result = await runPipeline(client, definition, { onStatus: (s) => console.log(s.stage, s.state) });
 *     console.log(result.erase?.videoUrl);
 *   } finally {
 *     await close();
 *   }
 *
 * Importing this module loads the Temporal client only, never the worker: the worker
 * side (createReelflowWorkers) is loaded on first call.
 */
import type * as ActivitiesModule from './activities';
import type * as WorkerProcessModule from './workers/main';
import type * as WorkerModule from './workers/worker';

// Pipelines: start, run-and-watch, status, result, cancel, operator decisions, list.
export {
  PIPELINE_WORKFLOW_TYPE,
  LIST_STATUSES,
  LIST_STAGES,
  startPipeline,
  runPipeline,
  followPipeline,
  pipelineStatus,
  pipelineResult,
  cancelPipeline,
  resolveCreate,
  listPipelines,
  buildListQuery,
  failureChain,
  outcomeOf,
  pipelineWorkflowId,
  pipelineSummary,
  pipelineDetails,
  definedStages,
  summarizeExecution,
  executionStatusName,
  type VideoPipelineWorkflow,
  type PipelineHandle,
  type StartPipelineOptions,
  type RunPipelineOptions,
  type FollowOptions,
  type PipelineOutcome,
  type ListPipelinesOptions,
  type ListStatus,
  type PipelineSummary,
} from './starters/client/pipeline-client';
export { ResolveRefusedError } from './starters/client/resolve-refused';
// Changes as they happen: the poller the gateway's event streams share (docs/api.md, "Events").
export { watchPipeline, PipelinePoller, type PipelineChange, type PipelineEnd } from './starters/client/watch';
export { statusKey } from './starters/client/status-change';
// What pipelineResult() and runPipeline() reject with when a pipeline did not complete.
export { PipelineFailedError, type PipelineEndStatus } from './starters/client/pipeline-failed';
export type { PipelineFailureDetails } from './contract/failure-details';

// Batches (one pipeline per JSON line, tagged ReelflowBatch) and schedules (Temporal Schedules).
export {
  startBatch,
  batchLines,
  batchWorkflowId,
  defaultBatchId,
  type StartBatchOptions,
  type BatchReport,
  type BatchLine,
  type BatchLineResult,
} from './starters/client/batch';
export {
  waitForBatch,
  batchState,
  batchFailures,
  type WaitForBatchOptions,
  type BatchState,
  type BatchFailure,
} from './starters/client/batch-wait';
export {
  createPipelineSchedule,
  listPipelineSchedules,
  describePipelineSchedule,
  deletePipelineSchedule,
  pausePipelineSchedule,
  unpausePipelineSchedule,
  triggerPipelineSchedule,
  updatePipelineSchedule,
  parseEvery,
  OVERLAP_POLICIES,
  MIN_INTERVAL_MS,
  type OverlapPolicy,
  type PipelineScheduleOptions,
  type PipelineScheduleSummary,
  type PipelineScheduleChanges,
  type TriggerResult,
} from './starters/client/schedules';

// Rerun: a new pipeline reusing an earlier one's finished outputs (no paid vendor task twice).
export {
  rerunPipeline,
  planRerun,
  RerunRefusedError,
  RERUN_FROM,
  type RerunFrom,
  type RerunOptions,
  type RerunPlan,
  type RerunRefusal,
  type RerunSource,
} from './starters/client/rerun';
// Bulk operations (docs/tenants.md#bulk-operations): cancel by tenant, batch or query; rerun a batch's failed pipelines.
export {
  cancelPipelines,
  countRunningPipelines,
  runningQuery,
  type PipelineSelection,
  type BulkCancelOptions,
  type BulkCancelProgress,
  type BulkCancelReport,
} from './starters/client/bulk-cancel';
export {
  planBatchRerun,
  rerunBatch,
  nextRerunId,
  type BatchRerunPlan,
  type BatchRerunResult,
  type BatchRerunOptions,
} from './starters/client/batch-rerun';
export type { TenantStartOptions } from './starters/client/tenant-options';
// Completion webhooks: verify a delivery in your backend; read a pipeline's delivery state.
export {
  verifyWebhook,
  signWebhook,
  WebhookVerificationError,
  DEFAULT_TOLERANCE_SECONDS as WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type WebhookVerificationCode,
} from './webhooks/signing';
export { webhookDeliveries, type WebhookDelivery } from './starters/client/webhooks';
// Spend budgets (docs/tenants.md "Budgets"): what `reelflow usage` and `reelflow budget` use.
export {
  tenantUsage,
  tenantBudgets,
  setTenantBudget,
  type TenantUsage,
  type BudgetLine,
  type SetBudgetOptions,
} from './starters/client/ledger';
export type { LedgerView } from './contract/ledger';
export { loadTenantsConfig, parseTenantsConfig, type TenantsConfig } from './tenants/config';

// Archived files: fetched from the worker that archived them (its archive server), verified.
export {
  fetchArchivedFile,
  downloadArchivedFile,
  pickArchivedFile,
  ArchiveFetchError,
  type FetchArchivedFileOptions,
  type FetchedArchivedFile,
  type ArchiveFetchReason,
} from './starters/client/archived-file';

// A Temporal client from the standard environment / config profile.
export {
  connectClient,
  resolveClientSettings,
  type ClientSettings,
  type ConnectedClient,
  type ResolvedClientSettings,
} from './starters/client/connect';

// The optional payload codec (AES-256-GCM, keys from REELFLOW_CODEC_KEYS) and its HTTP server:
// connectClient uses it by itself; pass codecDataConverter() to createReelflowWorkers' workerOptions.
export {
  codecDataConverter,
  codecDataConverterOf,
  codecFromEnv,
  workerCodecFromEnv,
  loadCodecKeys,
  EncryptionCodec,
  CodecConfigError,
  type CodecKeys,
} from './codec';
export { startCodecServer, type CodecServer, type CodecServerOptions } from './codec/server';

// Definition files.
export {
  loadDefinitionFile,
  validateDefinitionValue,
  DefinitionFileError,
  type LoadedDefinition,
  type LoadOptions,
  type DefinitionIssue,
  type DefinitionFileErrorKind,
} from './starters/client/definition-file';

// Human rendering of status and results (what the CLI prints).
export { renderStatus, renderResult, renderFailure, statusChanges, ProgressDisplay } from './starters/client/progress';

// The pipeline definition schema.
export {
  parseDefinition,
  definePipeline,
  DefinitionError,
  PipelineDefinitionSchema,
  formatPath,
  durationMs,
  type PipelineDefinition,
  type PipelineDefinitionInput,
  type ContentItemDefinition,
} from './definition/definition';

// The definition's JSON Schema (the committed copy: schema/pipeline-definition.schema.json).
export { definitionJsonSchema, DEFINITION_SCHEMA_FILE } from './definition/json-schema';

// Failure types: what a PipelineFailedError's `type` (and the types down its `cause` chain) may be.
export { FailureType, FAILURE_TYPES } from './failures';

// Messages: queries, updates, signals and the shapes they carry.
export * from './contract/messages';
export {
  STAGE as STAGE_SEARCH_ATTRIBUTE,
  STATUS as STATUS_SEARCH_ATTRIBUTE,
  VENDOR_TASK_IDS as VENDOR_TASK_IDS_SEARCH_ATTRIBUTE,
  BATCH as BATCH_SEARCH_ATTRIBUTE,
  REELFLOW_SEARCH_ATTRIBUTES,
} from './contract/search-attributes';

// The worker side, loaded lazily: importing 'reelflow' to start pipelines never loads
// @temporalio/worker (native runtime, webpack) nor the activities' HTTP client.

export type { ReelflowWorkersOptions, ReelflowWorkers, ReelflowWorker } from './workers/worker';
export type { WorkerProcessOptions, RunningWorkerProcess } from './workers/main';
export type { ActivityDeps, ReelflowActivities } from './activities';

/** The reelflow workers of one process (main queue + one GetAsset queue per profile); see src/workers/worker.ts. */
export async function createReelflowWorkers(
  opts: WorkerModule.ReelflowWorkersOptions,
): Promise<WorkerModule.ReelflowWorkers> {
  const { createReelflowWorkers: create } = await import('./workers/worker');
  return create(opts);
}

/** Everything `npm run worker` runs, configured from an environment; see src/workers/main.ts. */
export async function startWorkerProcess(
  opts?: WorkerProcessModule.WorkerProcessOptions,
): Promise<WorkerProcessModule.RunningWorkerProcess> {
  const { startWorkerProcess: start } = await import('./workers/main');
  return start(opts);
}

/** The activities for createReelflowWorkers, from your own dependencies (vendor clients per profile, archive folder). */
export async function createActivities(
  deps: ActivitiesModule.ActivityDeps,
): Promise<ActivitiesModule.ReelflowActivities> {
  const { createActivities: create } = await import('./activities');
  return create(deps);
}
