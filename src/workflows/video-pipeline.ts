/**
 * videoPipeline: the parent workflow. Runs one child workflow per stage (review →
 * assets → generation → erase), archives outputs before their URLs expire, and keeps
 * a status that the Web UI, the `status` query and the CLI show: stage, vendor task
 * ids, progress, operator waits. Cancelling it cancels the running child and its timers.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PipelineDefinition } from '../definition/definition';
import { ASSET_REF, durationMs, REVIEW_REF } from '../definition/refs';
import { inferMediaType } from '../vendor-api/batching';
import {
  ASSET_TERMINAL_STATES,
  ERASE_CURRENCY,
  ERASE_TERMINAL_STATES,
  ERASE_UNIT_PRICE,
  GENERATION_TERMINAL_STATES,
  REVIEW_TERMINAL_STATES,
} from '../vendor-api/assumed-values';
import {
  childWorkflowId,
  operatorDecisionSignal,
  resolveCreateUpdate,
  stageReportSignal,
  statusQuery,
  STAGES,
  type ArchivedFile,
  type PipelineInput,
  type PipelineResult,
  type PipelineStatus,
  type StageName,
  type StageReport,
} from './messages';
import { STAGE, STATUS, VENDOR_TASK_IDS } from './search-attributes';
import { ARCHIVE_OPTIONS, archiving } from './lib/proxies';
import { validateDecision } from './lib/stage-runtime';
import type { StageOutput } from './lib/stage-output';
import { assetsStage, type AssetSource } from './stages/assets';
import { eraseStage } from './stages/erase';
import { generationStage } from './stages/generation';
import { reviewStage } from './stages/review';

export async function videoPipeline(input: PipelineInput): Promise<PipelineResult> {
  let def: PipelineDefinition;
  // Loaded here, not at the top: zod and the schemas are then evaluated only in the
  // pipeline's own workflow context, not in every stage child's (measured: about 20 % of
  // the workflow thread's CPU and several MB per cached workflow).
  const { parseDefinition, DefinitionError } = require('../definition/definition') as typeof import('../definition/definition');
  try {
    def = parseDefinition(input.definition);
  } catch (err) {
    if (err instanceof DefinitionError) throw ApplicationFailure.nonRetryable(err.message, 'InvalidDefinition', err.issues);
    throw err;
  }
  const pipelineId = workflowInfo().workflowId;
  const status: PipelineStatus = {
    pipelineId,
    state: 'running',
    stage: firstStage(def),
    stages: Object.fromEntries(
      STAGES.map((s) => [s, { state: isEnabled(def, s) ? 'pending' : 'skipped' }]),
    ) as PipelineStatus['stages'],
    vendorTasks: [],
    calls: {},
  };
  const reports = new Map<StageName, StageReport>();
  const merge = (stage: StageName, r: Partial<StageOutput<unknown>> & Partial<StageReport>) => {
    const prev = reports.get(stage) ?? { stage };
    reports.set(stage, { ...prev, ...r, stage });
    status.vendorTasks = STAGES.flatMap((s) => reports.get(s)?.vendorTasks ?? []);
    status.calls = {};
    for (const rep of reports.values()) {
      for (const [k, n] of Object.entries(rep.calls ?? {})) status.calls[k] = (status.calls[k] ?? 0) + n;
    }
  };

  setHandler(statusQuery, () => status);
  setHandler(stageReportSignal, (r) => {
    merge(r.stage, r);
    const st = status.stages[r.stage];
    if (r.progress) st.progress = r.progress;
    if (r.detail) st.detail = r.detail;
    if (r.waiting !== undefined) status.waiting = r.waiting ?? undefined;
    refresh(r.stuck ? 'stuck' : undefined);
  });
  setHandler(
    resolveCreateUpdate,
    async (req) => {
      const waiting = status.waiting!;
      await getExternalWorkflowHandle(waiting.workflowId).signal(operatorDecisionSignal, { ...req, step: waiting.step });
      const moved = () => status.waiting?.step !== waiting.step || status.waiting?.attempt !== waiting.attempt;
      // Bounded wait added after the first histories were recorded: patched() keeps those replaying.
      const acknowledged = patched('resolve-ack-timeout') ? await condition(moved, '5 minutes') : (await condition(moved), true);
      if (!acknowledged) throw ApplicationFailure.nonRetryable(`stage ${waiting.stage} did not acknowledge the decision`, 'DecisionNotAcknowledged');
      return { stage: waiting.stage, step: waiting.step, accepted: req.decision };
    },
    {
      validator: (req) => {
        if (!status.waiting) throw new Error(`pipeline ${pipelineId} is not waiting for an operator decision`);
        if (req.step && req.step !== status.waiting.step) {
          throw new Error(`step "${req.step}" is not waiting; "${status.waiting.step}" is`);
        }
        validateDecision(req?.decision);
      },
    },
  );

  let lastSearch = '';
  const refresh = (override?: PipelineStatus['state']) => {
    if (status.state === 'running' || status.state === 'waiting-operator' || status.state === 'stuck') {
      status.state = override ?? (status.waiting ? 'waiting-operator' : anyStuck(reports) ? 'stuck' : 'running');
    }
    setCurrentDetails(renderDetails(status));
    const ids = status.vendorTasks.map((t) => t.id);
    const key = `${status.stage}|${status.state}|${ids.join(',')}`;
    if (key !== lastSearch) {
      lastSearch = key;
      upsertSearchAttributes([
        { key: STAGE, value: status.stage },
        { key: STATUS, value: status.state },
        { key: VENDOR_TASK_IDS, value: ids },
      ]);
    }
  };

  const opts = def.options;
  const common = {
    pipelineId,
    profile: opts.profile,
    callbacks: opts.callbacks,
    callbackGraceMs: durationMs(opts.deadlines.callbackGrace),
    deadlineMs: durationMs(opts.deadlines.vendorTask),
    createAttemptMs: durationMs(opts.deadlines.createAttempt),
    historyLimit: opts.historyEventsBeforeContinueAsNew,
    notFoundGraceMs: durationMs(opts.deadlines.notFoundGrace),
  };
  const timings: PipelineResult['timings'] = {};
  const result: PipelineResult = { pipelineId, vendorTasks: [], archived: [], timings, calls: {}, cost: {} };

  async function runStage<T>(stage: StageName, summary: string, start: () => Promise<StageOutput<T>>): Promise<T> {
    const st = status.stages[stage];
    status.stage = stage;
    st.state = 'running';
    st.workflowId = childWorkflowId(pipelineId, stage);
    st.startedAt = new Date().toISOString();
    refresh();
    const t0 = Date.now();
    try {
      const out = await start();
      merge(stage, out);
      if (out.detail) st.detail = out.detail;
      if (out.progress) st.progress = out.progress;
      st.state = 'done';
      return out.result;
    } catch (err) {
      st.state = isCancellation(err) ? 'cancelled' : 'failed';
      throw err;
    } finally {
      timings[stage] = Date.now() - t0;
      st.endedAt = new Date().toISOString();
      refresh();
      void summary;
    }
  }
  const child = <A extends unknown[], R>(stage: StageName, summary: string) => ({
    workflowId: childWorkflowId(pipelineId, stage),
    staticSummary: summary,
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
  });

  const archive = async (name: string, url: string, taskId: string): Promise<void> => {
    if (!opts.archive) return;
    status.stage = 'archive';
    refresh();
    const t0 = Date.now();
    const file: ArchivedFile = await archiving.archiveOutput.executeWithOptions(
      { ...ARCHIVE_OPTIONS, summary: `archive ${name}` },
      [{ pipelineId, taskId, name, url }],
    );
    result.archived.push(file);
    timings.archive = (timings.archive ?? 0) + (Date.now() - t0);
  };

  try {
    if (def.review) {
      const review = def.review;
      const summary = `review ${review.media.length} media`;
      result.review = await runStage('review', summary, () =>
        executeChild(reviewStage, {
          ...child('review', summary),
          args: [
            {
              ...common,
              media: review.media,
              assetType: review.assetType,
              groupId: review.groupId,
              groupSource: review.groupSource,
              requireAllPassed: review.requireAllPassed,
              policy: opts.ambiguousCreate.review,
            },
          ],
        }),
      );
    }
    if (def.assets) {
      const assets = def.assets;
      const summary = `register ${assets.items.length} assets`;
      const items = assets.items.map((item, i): AssetSource => {
        if ('url' in item) return { name: item.name, url: item.url, type: item.type };
        const reviewed = result.review?.items[item.fromReview];
        if (!reviewed?.passed) {
          throw ApplicationFailure.nonRetryable(`assets.items[${i}].fromReview: review item ${item.fromReview} did not pass review`, 'InvalidReference');
        }
        const url = reviewed.downstreamFinalUrl ?? reviewed.sourceUrl;
        const t = inferMediaType(reviewed.sourceUrl);
        return { name: item.name, url, type: t.ok ? t.type : 'Image' };
      });
      result.assets = await runStage('assets', summary, () =>
        executeChild(assetsStage, {
          ...child('assets', summary),
          args: [{ ...common, group: assets.group, items, pendingDeadlineMs: durationMs(opts.deadlines.assetPending), stuckAfterMs: durationMs(opts.deadlines.assetStuck) }],
        }),
      );
    }
    if (def.generation) {
      const gen = def.generation;
      const request = { ...gen, content: gen.content.map((c, i) => resolveRefs(c, i, result)) };
      const summary = `generate video with ${gen.model}`;
      result.generation = await runStage('generation', summary, () =>
        executeChild(generationStage, {
          ...child('generation', summary),
          args: [{ ...common, request, policy: opts.ambiguousCreate.generation }],
        }),
      );
      // Archive before anything else: the original URL expires 24 h after generation.
      await archive(`generated${extensionOf(result.generation.videoUrl)}`, result.generation.videoUrl, result.generation.taskId);
    }
    if (def.erase && result.generation) {
      const generated = result.generation;
      const summary = `erase subtitles of ${generated.taskId}`;
      result.erase = await runStage('erase', summary, () =>
        executeChild(eraseStage, {
          ...child('erase', summary),
          args: [
            {
              ...common,
              videoUrl: generated.videoUrl,
              videoUrlExpiresAt: generated.videoUrlExpiresAt,
              policy: opts.ambiguousCreate.erase,
            },
          ],
        }),
      );
      await archive(`erased${extensionOf(result.erase.videoUrl)}`, result.erase.videoUrl, result.erase.taskId);
    }
  } catch (err) {
    const cancelled = isCancellation(err);
    status.state = cancelled ? 'cancelled' : 'failed';
    const running = status.vendorTasks.filter((t) => !isTerminal(t.state));
    status.error = cancelled
      ? `cancelled; vendor tasks that may still be running (the vendor shows no cancel endpoint): ${
          running.map((t) => `${t.kind} ${t.id}`).join(', ') || 'none'
        }`
      : messageOf(err);
    await CancellationScope.nonCancellable(async () => refresh());
    if (cancelled) throw err;
    throw ApplicationFailure.nonRetryable(`pipeline ${pipelineId} failed in stage ${status.stage}: ${messageOf(err)}`, 'PipelineFailed');
  }

  status.stage = 'done';
  status.state = 'completed';
  refresh();
  result.vendorTasks = status.vendorTasks;
  result.calls = status.calls;
  const eraseTasks = status.vendorTasks.filter((t) => t.kind === 'erase').length;
  if (eraseTasks > 0) {
    result.cost.erase = { calls: eraseTasks, unitPrice: ERASE_UNIT_PRICE, currency: ERASE_CURRENCY, total: +(eraseTasks * ERASE_UNIT_PRICE).toFixed(9) };
  }
  return result;
}

/** ".mp4" from a video URL's path (query ignored), so archived files open in a player. */
function extensionOf(url: string): string {
  const m = /^[^?#]*?(\.[A-Za-z0-9]{1,5})(?:[?#]|$)/.exec(url);
  return m ? m[1].toLowerCase() : '';
}

function isEnabled(def: PipelineDefinition, stage: StageName): boolean {
  return stage === 'erase' ? def.erase : Boolean(def[stage]);
}

function firstStage(def: PipelineDefinition): StageName {
  return STAGES.find((s) => isEnabled(def, s)) ?? 'generation';
}

function anyStuck(reports: Map<StageName, StageReport>): boolean {
  return [...reports.values()].some((r) => r.stuck);
}

const TERMINAL_STATES: readonly string[] = [
  ...GENERATION_TERMINAL_STATES,
  ...ERASE_TERMINAL_STATES,
  ...REVIEW_TERMINAL_STATES,
  ...ASSET_TERMINAL_STATES,
];
function isTerminal(state: string | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.includes(state);
}

function messageOf(err: unknown): string {
  let e: unknown = err;
  // Show the innermost cause: "stage failed: generation task X ended failed: ..."
  while (e instanceof Error && (e as { cause?: unknown }).cause instanceof Error) e = (e as { cause: Error }).cause;
  return e instanceof Error ? e.message : String(e);
}

/** Replaces ref:review/N and ref:asset/NAME in a content item with Asset:// addresses. */
function resolveRefs<T extends { type: string }>(item: T, index: number, result: PipelineResult): T {
  if (item.type === 'text') return item;
  const holder = (item as unknown as Record<string, { url: string }>)[item.type];
  const url = holder.url;
  const field = `generation.content[${index}].${item.type}.url`;
  let resolved = url;
  const r = REVIEW_REF.exec(url);
  if (r) {
    const reviewed = result.review?.items[Number(r[1])];
    if (!reviewed?.passed || !reviewed.assetUrl) {
      throw ApplicationFailure.nonRetryable(`${field}: review item ${r[1]} did not pass review`, 'InvalidReference');
    }
    resolved = reviewed.assetUrl;
  }
  const a = ASSET_REF.exec(url);
  if (a) {
    const asset = result.assets?.items.find((x) => x.name === a[1]);
    if (!asset) throw ApplicationFailure.nonRetryable(`${field}: no created asset named ${a[1]}`, 'InvalidReference');
    resolved = asset.assetUrl;
  }
  return { ...item, [item.type]: { ...holder, url: resolved } };
}

function renderDetails(s: PipelineStatus): string {
  const lines = [`**${s.pipelineId}** — ${s.state}, stage: ${s.stage}`];
  for (const name of STAGES) {
    const st = s.stages[name];
    if (st.state === 'skipped') continue;
    const progress = st.progress ? ` ${st.progress.done}/${st.progress.total}` : '';
    lines.push(`- ${name}: ${st.state}${progress}${st.detail ? ` — ${st.detail}` : ''}`);
  }
  if (s.vendorTasks.length) {
    lines.push(`Vendor tasks: ${s.vendorTasks.map((t) => `${t.kind} ${t.id}${t.state ? ` (${t.state})` : ''}${t.orphan ? ' [orphan]' : ''}`).join(', ')}`);
  }
  if (s.waiting) {
    lines.push(`**Waiting for an operator** on ${s.waiting.step}: ${s.waiting.reason} — \`reelflow resolve ${s.pipelineId} --task-id <id> | --resubmit\``);
  }
  if (s.error) lines.push(`Error: ${s.error}`);
  return lines.join('\n');
}
