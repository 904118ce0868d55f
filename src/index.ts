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
} from './starters/pipelines';

// A Temporal client from the standard environment / config profile.
export {
  connectClient,
  resolveClientSettings,
  type ClientSettings,
  type ConnectedClient,
  type ResolvedClientSettings,
} from './starters/client';

// Definition files.
export {
  loadDefinitionFile,
  validateDefinitionValue,
  DefinitionFileError,
  type LoadedDefinition,
  type LoadOptions,
  type DefinitionIssue,
  type DefinitionFileErrorKind,
} from './starters/definition-file';

// Human rendering of status and results (what the CLI prints).
export { renderStatus, renderResult, renderFailure, statusChanges, ProgressDisplay } from './starters/progress';

// The pipeline definition schema.
export {
  parseDefinition,
  DefinitionError,
  PipelineDefinitionSchema,
  formatPath,
  durationMs,
  type PipelineDefinition,
  type PipelineDefinitionInput,
  type ContentItemDefinition,
} from './pipeline/definition';

// Messages: queries, updates, signals and the shapes they carry.
export * from './workflows/messages';
export {
  STAGE as STAGE_SEARCH_ATTRIBUTE,
  STATUS as STATUS_SEARCH_ATTRIBUTE,
  VENDOR_TASK_IDS as VENDOR_TASK_IDS_SEARCH_ATTRIBUTE,
  REELFLOW_SEARCH_ATTRIBUTES,
} from './workflows/search-attributes';
