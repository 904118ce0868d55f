/**
 * videoPipeline: ONE workflow per pipeline. Its stages (review → assets → generation →
 * erase) are plain async functions run in order, sharing one runtime (status, details,
 * search attributes, operator waits, callback inbox); outputs are archived the moment they
 * exist. Past the history limit it continues as new with the finished stages' outputs and
 * the running stage's known task ids. Cancelling it cancels its activities and timers.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { isPlaintext } from '../codec/plaintext-mark';
import { printable } from '../contract/printable';
import { FailureType } from '../failures';
import { taskPriority } from '../contract/tenancy';
import type { PipelineDefinition } from '../definition/definition';
import { durationMs } from '../definition/refs';
import { listedCosts } from '../contract/stages';
import {
  PIPELINE_BEHAVIOUR,
  outputsQuery,
  statusQuery,
  type PipelineInput,
  type PipelineResult,
  type PipelineStatus,
  type StageName,
} from '../contract/messages';
import { archiveOutput } from './stages/archive';
import { ASSET_FIRST_READ_PATCH, ASSET_NAMES_BY_RUN_PATCH, ASSETS } from './stages/assets';
import { ERASE } from './stages/erase';
import { GENERATION } from './stages/generation';
import { REVIEW } from './stages/review';
import { outputOf, setOutput, type AnyStage, type StageContext } from './lib/stage-definition';
import { isTerminalState } from '../contract/task-states';
import { FAILURE_DETAILS_PATCH, messageOf, pipelineFailure, vendorCodeOf } from './lib/failures';
import type { PipelineFailureDetails } from '../contract/failure-details';
import type { RuntimeCarry } from '../contract/carry';
import { PipelineRuntime } from './lib/pipeline-runtime';
import { CALLBACK_BOUND_PATCH } from './lib/callback-book';
import { countPipelineEnd, recordStageDuration } from './lib/metrics';
import { LOCAL_QUERIES_PATCH, LOCALS_IN_TURN_PATCH, RESOLVE_PROOF_PATCH, validating } from './lib/proxies';
import { reuseOutputs } from './lib/reuse';
import { refusedResume } from './lib/resume-check';
import { REUSE_BY_RUN_PATCH } from './lib/reuse-by-run';
import { WEBHOOK_PATCH, WebhookSender } from './webhook';
import type { StageCommon } from './lib/stage-common';
import { giveSlot, takeSlot } from './lib/tenant-slot';
import { endSpend, reservePlan } from './lib/spend';
import { plannedCreates } from './lib/plan';

/**
 * The product's stages, in the stage table's order (src/contract/stages.ts): each is its
 * module's definition (docs/architecture.md, "How to add a stage").
 */
export const PIPELINE_STAGES: readonly AnyStage[] = [REVIEW, ASSETS, GENERATION, ERASE];

export async function videoPipeline(input: PipelineInput): Promise<PipelineResult> {
  return await pipelineOf(input, PIPELINE_STAGES);
}

/**
 * A pipeline over a list of stages: videoPipeline's, or a test workflow's that adds its own
 * stage after them (docs/architecture.md, "How to add a stage").
 */
export async function pipelineOf(input: PipelineInput, stages: readonly AnyStage[]): Promise<PipelineResult> {
  const patchFree = input.behaviour === PIPELINE_BEHAVIOUR;
  const patches = decidePatches(input, patchFree);
  // While a continued run's carry is checked (a local activity), `status` answers from it;
  // the runtime's own handler replaces this one (a query writes no history).
  if (input.resume) setHandler(statusQuery, () => input.resume!.runtime.status);
  const refused = wrongBehaviour(input) ?? (await refusedResume(input.resume, patchFree));
  const resume = refused ? undefined : input.resume;
  const { rt, result } = startRuntime(input, resume, patches, stages);
  rt.patchFree = patchFree;
  let def: PipelineDefinition;
  try {
    if (refused) throw refused; // a forged `resume`: fails before any vendor call
    def = await validated(input, rt);
  } catch (err) {
    await CancellationScope.nonCancellable(() => Promise.resolve(ended(rt, err)));
    throw err;
  }
  rt.historyLimit = def.options.historyEventsBeforeContinueAsNew;
  rt.notFoundGraceMs = durationMs(def.options.deadlines.notFoundGrace);
  const webhooks = patches.sendingWebhooks ? WebhookSender.of(rt, def) : undefined;
  if (webhooks) rt.onWait = (w) => webhooks.waiting(w);
  if (!resume) skipDisabled(rt, def, stages);
  try {
    await takeSlot(rt); // only where a concurrency limit applies (docs/tenants.md)
    if (input.reuse && !resume) await reuseOutputs(rt, def, input.reuse, result, patches.reusingByRun);
    await reservePlan(rt, plannedCreates(def, result)); // before the first create, by the tenant's budget
    await runStages({ rt, def, result, common: commonOf(rt.status.pipelineId, def) }, stages);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    await CancellationScope.nonCancellable(async () => {
      ended(rt, err);
      await giveSlot(rt);
      await webhooks?.ended(undefined, err);
      await endSpend(rt); // last: its ledgers read the record once the pipeline has closed
    });
    if (isCancellation(err)) throw err;
    throw pipelineFailure(rt.status.pipelineId, rt.status.stage, err, failureDetails(rt, err));
  }
  rt.status.stage = 'done';
  rt.status.state = 'completed';
  rt.refresh();
  await giveSlot(rt);
  countPipelineEnd(rt.status);
  const final = finalResult(rt, result);
  await webhooks?.ended(final);
  await endSpend(rt); // last: its ledgers read the record once the pipeline has closed
  return final;
}

/**
 * Every patch a pipeline asks, decided in its first workflow task before any command: a new
 * run records the markers there, so its replay meets them at the same place whatever the
 * timing of later tasks (a local activity's result, for one, may reach a replay a workflow
 * task earlier than the original run saw it; a signal may be handled in this very task).
 */
function decidePatches(input: PipelineInput, patchFree: boolean) {
  // A run started at PIPELINE_BEHAVIOUR has them all, and asks nothing (no markers).
  const on = (patchId: string) => patchFree || patched(patchId);
  // Runs recorded with this marker at their first query still find it there: runQuery asks too.
  if (!patchFree) patched(LOCAL_QUERIES_PATCH);
  return {
    sendingWebhooks: on(WEBHOOK_PATCH),
    provesOperatorIds: on(RESOLVE_PROOF_PATCH),
    boundCallbacks: on(CALLBACK_BOUND_PATCH),
    detailedFailures: on(FAILURE_DETAILS_PATCH),
    // Asked only by a fresh rerun, so other runs' histories carry no marker for it.
    reusingByRun: input.reuse !== undefined && !input.resume && on(REUSE_BY_RUN_PATCH),
    // Only where branches run in parallel (review batches, asset items); every run asks.
    localsInTurn: hasParallelStages(input.definition) && on(LOCALS_IN_TURN_PATCH),
    // Asked by a first run with assets only; a continued run keeps its first run's naming (its carry).
    namingAssetsByRun: !input.resume && hasAssets(input.definition) && on(ASSET_NAMES_BY_RUN_PATCH),
    // Every run with assets asks: a continued run may create an asset too.
    readingAssetsLater: hasAssets(input.definition) && on(ASSET_FIRST_READ_PATCH),
  };
}

/** A `behaviour` this code does not know: the run fails before any vendor call, naming the field. */
function wrongBehaviour(input: PipelineInput): ApplicationFailure | undefined {
  const { behaviour } = input as { behaviour?: unknown };
  if (behaviour === undefined || behaviour === PIPELINE_BEHAVIOUR) return undefined;
  return ApplicationFailure.nonRetryable(
    `behaviour: must be ${PIPELINE_BEHAVIOUR} or absent, got ${printable(JSON.stringify(behaviour), 40)}`,
    FailureType.InvalidDefinition,
  );
}

/** The raw definition has a review or an assets stage (read before validation: only the keys count). */
function hasParallelStages(definition: unknown): boolean {
  if (typeof definition !== 'object' || definition === null) return false;
  const d = definition as { review?: unknown; assets?: unknown };
  return d.review != null || d.assets != null;
}

/** The raw definition has an assets stage (read before validation, so only the key's presence counts). */
function hasAssets(definition: unknown): boolean {
  return typeof definition === 'object' && definition !== null && (definition as { assets?: unknown }).assets != null;
}

/** The runtime and the result it fills, from the carry of a continue-as-new or afresh; handlers set. */
function startRuntime(
  input: PipelineInput,
  resume: PipelineInput['resume'],
  patches: ReturnType<typeof decidePatches>,
  stages: readonly AnyStage[],
): { rt: PipelineRuntime; result: PipelineResult } {
  const pipelineId = workflowInfo().workflowId;
  const result: PipelineResult = resume?.result ?? {
    pipelineId,
    vendorTasks: [],
    archived: [],
    timings: {},
    calls: {},
    cost: {},
  };
  // Handlers first: the status query answers while the definition is being validated.
  const rt = new PipelineRuntime(
    resume?.runtime ?? firstCarry(pipelineId, stages),
    (runtime) =>
      continueAsNew<typeof videoPipeline>({
        definition: input.definition,
        resume: { runtime, result },
        ...(input.behaviour === PIPELINE_BEHAVIOUR ? { behaviour: PIPELINE_BEHAVIOUR } : {}),
      }),
    patches.boundCallbacks,
  );
  rt.provesOperatorIds = patches.provesOperatorIds;
  rt.detailedFailures = patches.detailedFailures;
  rt.localsInTurn = patches.localsInTurn;
  if (!resume) rt.assetNamesByRun = patches.namingAssetsByRun;
  rt.assetReadsLater = patches.readingAssetsLater;
  // What `rerun` reuses, with every vendor task so far (a rerun adopts those that may still
  // succeed); a query writes no history, so runs recorded before it replay as they were.
  setHandler(outputsQuery, () => ({
    definition: input.definition,
    result: { ...result, vendorTasks: rt.vendorTasks },
  }));
  return { rt, result };
}

/**
 * The parsed definition, or the validator's own failure (InvalidDefinition, or
 * PlaintextPayloadRefused for a plaintext start on a strict worker), not wrapped in an
 * ActivityFailure. The worker's strictness reaches the runtime through this recorded result.
 */
async function validated(input: PipelineInput, rt: PipelineRuntime): Promise<PipelineDefinition> {
  try {
    // Only a marked input adds the flag: an unmarked start asks exactly what it asked before.
    const plaintext = isPlaintext(input) ? { plaintext: true } : {};
    const { codecStrict, tenantPolicy, ...def } = await validating.validateDefinition({
      definition: input.definition,
      ...plaintext,
    });
    rt.codecStrict = codecStrict === true;
    // A continued run keeps its first run's tenant (its slot and prices are that tenant's).
    rt.tenantPolicy ??= tenantPolicy;
    if (rt.tenantPolicy) {
      rt.status.tenant = rt.tenantPolicy.tenant;
      rt.status.priority = rt.tenantPolicy.priority;
      rt.taskOptions = { priority: taskPriority(rt.tenantPolicy) };
    }
    return def;
  } catch (err) {
    throw err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : err;
  }
}

/**
 * The stages in order, each archiving its output the moment it exists (a generated video's
 * URL expires 24 h after generation); after a continue-as-new, the finished ones are skipped
 * by their outputs.
 */
async function runStages(ctx: StageContext, stages: readonly AnyStage[]): Promise<void> {
  const { rt, def, result } = ctx;
  for (const s of stages) {
    await runStage(ctx, s);
    const out = outputOf(result, s.name);
    const archived = out !== undefined && s.archives?.(out);
    if (def.options.archive && archived) await archiveOutput(rt, result, archived.as, archived.output);
  }
}

/** One stage, if the definition runs it, it has not finished, and what it needs is there. */
async function runStage(ctx: StageContext, s: AnyStage): Promise<void> {
  if (!s.enabled(ctx.def) || outputOf(ctx.result, s.name) !== undefined) return;
  const input = s.input(ctx);
  if (input === undefined) return;
  setOutput(ctx.result, s.name, await stage(ctx.rt, ctx.result, s.name, () => s.run(ctx.rt, input)));
}

/** Runs one stage: shown as running, timed, then done, failed or cancelled. */
async function stage<T>(
  rt: PipelineRuntime,
  result: PipelineResult,
  name: StageName,
  run: () => Promise<T>,
): Promise<T> {
  const st = rt.status.stages[name];
  rt.status.stage = name;
  st.state = 'running';
  st.startedAt ??= new Date().toISOString();
  rt.refresh();
  let out: T;
  try {
    out = await run();
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err; // the next run goes on with this stage
    close(rt, result, name, isCancellation(err) ? 'cancelled' : 'failed');
    throw err;
  }
  close(rt, result, name, 'done');
  return out;
}

function close(
  rt: PipelineRuntime,
  result: PipelineResult,
  name: StageName,
  state: 'done' | 'failed' | 'cancelled',
): void {
  const st = rt.status.stages[name];
  st.state = state;
  st.endedAt = new Date().toISOString();
  result.timings[name] = Date.parse(st.endedAt) - Date.parse(st.startedAt!);
  recordStageDuration(name, state, result.timings[name]);
  rt.stuck = false;
  rt.refresh();
}

function commonOf(pipelineId: string, def: PipelineDefinition): StageCommon {
  const { options } = def;
  return {
    pipelineId,
    profile: options.profile,
    callbacks: options.callbacks,
    callbackGraceMs: durationMs(options.deadlines.callbackGrace),
    deadlineMs: durationMs(options.deadlines.vendorTask),
    createAttemptMs: durationMs(options.deadlines.createAttempt),
    notFoundGraceMs: durationMs(options.deadlines.notFoundGrace),
  };
}

function firstCarry(pipelineId: string, stages: readonly AnyStage[]): RuntimeCarry {
  const status: PipelineStatus = {
    pipelineId,
    state: 'running',
    stage: 'review',
    stages: Object.fromEntries(stages.map((s) => [s.name, { state: 'pending' }])) as PipelineStatus['stages'],
    vendorTasks: [],
    calls: {},
  };
  return { status, holds: {}, book: undefined };
}

/** Stages the definition leaves out are shown as skipped; the first one that runs is current. */
function skipDisabled(rt: PipelineRuntime, def: PipelineDefinition, stages: readonly AnyStage[]): void {
  for (const s of stages) if (!s.enabled(def)) rt.status.stages[s.name].state = 'skipped';
  rt.status.stage = stages.find((s) => s.enabled(def))?.name ?? 'generation';
  rt.refresh();
}

/** A failed or cancelled pipeline says so, and names the vendor tasks that may still run. */
/** What PipelineFailedError reads, for runs with patch `pipeline-failure-details`. */
function failureDetails(rt: PipelineRuntime, err: unknown): PipelineFailureDetails | undefined {
  if (!rt.detailedFailures) return undefined;
  const { stage, vendorTasks } = rt.status;
  const vendorCode = vendorCodeOf(err);
  return { stage: stage === 'done' ? 'archive' : stage, vendorTasks, ...(vendorCode ? { vendorCode } : {}) };
}

function ended(rt: PipelineRuntime, err: unknown): void {
  const s = rt.status;
  const cancelled = isCancellation(err);
  s.state = cancelled ? 'cancelled' : 'failed';
  const running = s.vendorTasks.filter((t) => !isTerminalState(t.state));
  s.error = cancelled
    ? `cancelled; vendor tasks that may still be running (the vendor shows no cancel endpoint): ${running.map((t) => `${t.kind} ${t.id}`).join(', ') || 'none'}`
    : messageOf(err);
  rt.refresh();
  countPipelineEnd(s, err);
}

function finalResult(rt: PipelineRuntime, result: PipelineResult): PipelineResult {
  const { vendorTasks, calls } = rt.status;
  return { ...result, vendorTasks, calls, cost: listedCosts(vendorTasks) };
}
