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
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { isPlaintext } from '../codec/plaintext-mark';
import { taskPriority } from '../contract/tenancy';
import type { PipelineDefinition } from '../definition/definition';
import { durationMs } from '../definition/refs';
import { listedCosts } from '../contract/stages';
import {
  outputsQuery,
  statusQuery,
  type PipelineInput,
  type PipelineResult,
  type PipelineStatus,
  type StageName,
} from '../contract/messages';
import { archiveOutput } from './stages/archive';
import { ASSETS } from './stages/assets';
import { ERASE } from './stages/erase';
import { GENERATION } from './stages/generation';
import { REVIEW } from './stages/review';
import { outputOf, setOutput, type AnyStage, type StageContext } from './lib/stage-definition';
import { isTerminalState } from '../contract/task-states';
import { messageOf, pipelineFailure, vendorCodeOf } from './lib/failures';
import type { PipelineFailureDetails } from '../contract/failure-details';
import type { RuntimeCarry } from '../contract/carry';
import { PipelineRuntime } from './lib/pipeline-runtime';
import { decideBehaviour, retiredInputField, type Behaviour } from './lib/behaviour';
import { countPipelineEnd, recordStageDuration } from './lib/status/metrics';
import { validating } from './lib/proxies';
import { reuseOutputs } from './lib/reuse/reuse';
import { refusedResume } from './lib/resume-check';
import { WebhookSender } from './webhook';
import type { StageCommon } from './lib/stage-common';
import { giveSlot, takeSlot } from './lib/tenant-slot';
import { endSpend, reservePlan } from './create/spend';
import { listenBeforeRuntime } from './create/operator';
import { plannedCreates } from '../contract/plan';

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
  const behaviour = decideBehaviour(input); // first, before any command (behaviour.ts)
  // While a continued run's carry is checked (a local activity), `status` answers from it;
  // the runtime's own handler replaces this one (a query writes no history).
  // And an operator's answer sent as the run continued is taken, not rejected (operator.ts).
  const early: { rt?: PipelineRuntime } = {};
  if (input.resume) {
    setHandler(statusQuery, () => input.resume!.runtime.status);
    listenBeforeRuntime(input.resume.runtime.status.waiting, () => early.rt?.creates.operator);
  }
  const refused = retiredInputField(input) ?? (await refusedResume(input.resume));
  const resume = refused ? undefined : input.resume;
  const { rt, result } = startRuntime(input, resume, behaviour, stages);
  early.rt = rt;
  let def: PipelineDefinition;
  try {
    if (refused) throw refused; // a forged `resume` or a retired field: fails before any vendor call
    def = await validated(input, rt);
  } catch (err) {
    await CancellationScope.nonCancellable(() => Promise.resolve(ended(rt, err)));
    throw err;
  }
  rt.historyLimit = def.options.historyEventsBeforeContinueAsNew;
  rt.notFoundGraceMs = durationMs(def.options.deadlines.notFoundGrace);
  const webhooks = WebhookSender.of(rt, def);
  if (webhooks) rt.creates.operator.onWait = (w) => webhooks.waiting(w);
  if (!resume) skipDisabled(rt, def, stages);
  try {
    await takeSlot(rt); // only where a concurrency limit applies (docs/tenants.md)
    if (input.reuse && !resume) await reuseOutputs(rt, def, input.reuse, result);
    await reservePlan(rt, plannedCreates(def, result)); // before the first create, by the tenant's budget
    await runStages({ rt, def, result, common: commonOf(rt.board.status.pipelineId, def) }, stages);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    await CancellationScope.nonCancellable(async () => {
      ended(rt, err);
      await giveSlot(rt);
      await webhooks?.ended(undefined, err);
      await endSpend(rt); // last: its ledgers read the record once the pipeline has closed
    });
    if (isCancellation(err)) throw err;
    throw pipelineFailure(rt.board.status.pipelineId, rt.board.status.stage, err, failureDetails(rt, err));
  }
  rt.board.status.stage = 'done';
  rt.board.status.state = 'completed';
  rt.board.refresh();
  await giveSlot(rt);
  countPipelineEnd(rt.board.status);
  const final = finalResult(rt, result);
  await webhooks?.ended(final);
  await endSpend(rt); // last: its ledgers read the record once the pipeline has closed
  return final;
}

/** The runtime and the result it fills, from the carry of a continue-as-new or afresh; handlers set. */
function startRuntime(
  input: PipelineInput,
  resume: PipelineInput['resume'],
  behaviour: Behaviour,
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
      }),
    behaviour,
  );
  // What `rerun` reuses, with every vendor task so far (a rerun adopts those that may still
  // succeed); a query writes no history, so runs recorded before it replay as they were.
  setHandler(outputsQuery, () => ({
    definition: input.definition,
    result: { ...result, vendorTasks: rt.board.vendorTasks },
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
    // A new pipeline's plan is asked for by the check itself (behaviour.ts, spend.ts).
    const askPlan = rt.behaviour.spendInCheck && !input.resume && !input.reuse;
    if (askPlan) rt.creates.spend.expectCheckAsk();
    const { codecStrict, tenantPolicy, planAsk, ...def } = await validating.validateDefinition({
      definition: input.definition,
      ...plaintext,
      ...(askPlan ? { askPlan: { chain: rt.creates.spend.chain } } : {}),
    });
    rt.creates.spend.checkAsked(planAsk);
    rt.codecStrict = codecStrict === true;
    // A continued run keeps its first run's tenant (its slot and prices are that tenant's).
    rt.tenantPolicy ??= tenantPolicy;
    if (rt.tenantPolicy) {
      rt.board.status.tenant = rt.tenantPolicy.tenant;
      rt.board.status.priority = rt.tenantPolicy.priority;
      rt.board.taskOptions = { priority: taskPriority(rt.tenantPolicy) };
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
  const st = rt.board.status.stages[name];
  rt.board.status.stage = name;
  st.state = 'running';
  st.startedAt ??= new Date().toISOString();
  rt.board.refresh();
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
  const st = rt.board.status.stages[name];
  st.state = state;
  st.endedAt = new Date().toISOString();
  result.timings[name] = Date.parse(st.endedAt) - Date.parse(st.startedAt!);
  recordStageDuration(name, state, result.timings[name]);
  rt.board.stuck = false;
  rt.board.refresh();
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
  for (const s of stages) if (!s.enabled(def)) rt.board.status.stages[s.name].state = 'skipped';
  rt.board.status.stage = stages.find((s) => s.enabled(def))?.name ?? 'generation';
  rt.board.refresh();
}

/** What PipelineFailedError reads: the stage, the vendor's code and the vendor tasks. */
function failureDetails(rt: PipelineRuntime, err: unknown): PipelineFailureDetails {
  const { stage, vendorTasks } = rt.board.status;
  const vendorCode = vendorCodeOf(err);
  return { stage: stage === 'done' ? 'archive' : stage, vendorTasks, ...(vendorCode ? { vendorCode } : {}) };
}

/** A failed or cancelled pipeline says so, and names the vendor tasks that may still run. */
function ended(rt: PipelineRuntime, err: unknown): void {
  const s = rt.board.status;
  const cancelled = isCancellation(err);
  s.state = cancelled ? 'cancelled' : 'failed';
  const running = s.vendorTasks.filter((t) => !isTerminalState(t.state));
  s.error = cancelled
    ? `cancelled; vendor tasks that may still be running (the vendor shows no cancel endpoint): ${running.map((t) => `${t.kind} ${t.id}`).join(', ') || 'none'}`
    : messageOf(err);
  rt.board.refresh();
  countPipelineEnd(s, err);
}

function finalResult(rt: PipelineRuntime, result: PipelineResult): PipelineResult {
  const { vendorTasks, calls } = rt.board.status;
  return { ...result, vendorTasks, calls, cost: listedCosts(vendorTasks) };
}
