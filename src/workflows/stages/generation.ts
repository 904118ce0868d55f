/** Generation stage: create the (paid) video task without duplicates, then poll it. */
import { ApplicationFailure } from '@temporalio/workflow';
import { ORIGINAL_URL_VALIDITY_MS } from '../../vendor-api/documented-values';
import { GENERATION_STATES, GENERATION_TERMINAL_STATES } from '../../vendor-api/assumed-values';
import type { PipelineDefinition } from '../../definition/definition';
import { ASSET_REF, REVIEW_REF } from '../../definition/refs';
import type { GenerationStageResult, PipelineResult } from '../../contract/messages';
import { CREATE_OPTIONS, creates, runQuery } from '../lib/proxies';
import { stageFailure } from '../lib/failures';
import { DEFAULT_POLICIES } from '../../contract/poll-policy';
import { createAndPollSingleTask, type SingleTaskInput } from '../lib/single-task';
import type { PipelineRuntime } from '../lib/pipeline-runtime';
import { FailureType } from '../../failures';
import type { StageDefinition } from '../lib/stage-definition';

export interface GenerationStageInput extends SingleTaskInput {
  /** The generation create body, references already resolved; callback_url is added per attempt. */
  request: Record<string, unknown>;
}

export async function generationStage(
  rt: PipelineRuntime,
  input: GenerationStageInput,
): Promise<GenerationStageResult> {
  const { profile } = input;
  const { taskId, task } = await createAndPollSingleTask({
    rt,
    input,
    kind: 'generation',
    endpoints: { create: 'generation.create', query: 'generation.get' },
    policy: DEFAULT_POLICIES.generation,
    terminal: GENERATION_TERMINAL_STATES,
    expect: { model: typeof input.request.model === 'string' ? input.request.model : undefined },
    known: GENERATION_STATES,
    create: async (n, callback, grant) => {
      const res = await creates.generationCreate.executeWithOptions(
        {
          ...CREATE_OPTIONS,
          ...rt.board.taskOptions,
          startToCloseTimeout: input.createAttemptMs,
          summary: rt.board.summary(`create task (attempt ${n})`),
        },
        [{ profile, request: input.request, callback, ...(grant && { grant }) }],
      );
      return { taskId: res.id };
    },
    query: (id) => runQuery(rt, 'generationGet', rt.board.summary(`poll ${id}`), [{ profile, id }]),
  });
  if (task.status === 'expired') {
    throw stageFailure(
      `generation task ${taskId} expired at the vendor before it produced a video`,
      FailureType.GenerationExpired,
    );
  }
  if (task.status !== 'succeeded' || !task.videoUrl) {
    const why = [task.errorCode, task.failReason].filter(Boolean).join(': ');
    throw stageFailure(
      `generation task ${taskId} ended ${task.status}${why ? `: ${why}` : ''}`,
      FailureType.GenerationFailed,
      task.errorCode ? { vendorCode: task.errorCode } : undefined,
    );
  }
  return {
    taskId,
    videoUrl: task.videoUrl,
    videoUrlExpiresAt: new Date(producedAt(task) + ORIGINAL_URL_VALIDITY_MS).toISOString(),
  };
}

/** Generates the video, references resolved first; the generated video is archived (its URL expires in 24 h). */
export const GENERATION: StageDefinition<GenerationStageInput, GenerationStageResult> = {
  name: 'generation',
  enabled: (def) => def.generation !== undefined,
  input: ({ def, result, common }) => ({
    ...common,
    request: generationRequest(def.generation!, result),
    policy: def.options.ambiguousCreate.generation,
  }),
  run: generationStage,
  archives: (out) => ({ as: 'generated', output: out }),
};

/**
 * Start of the video URL's 24 h: the vendor's finish time (`finished_at`, else the terminal
 * answer's `updated_at`), never later than when we first saw the task succeeded (now).
 */
export function producedAt(task: { finishedAt?: number; updatedAt?: number }): number {
  const vendorSeconds = task.finishedAt ?? task.updatedAt;
  const firstSeen = Date.now();
  return vendorSeconds === undefined ? firstSeen : Math.min(vendorSeconds * 1000, firstSeen);
}

/** The vendor create body of the definition's generation, with every reference replaced by its Asset:// address. */
export function generationRequest(
  gen: NonNullable<PipelineDefinition['generation']>,
  result: PipelineResult,
): Record<string, unknown> {
  return { ...gen, content: gen.content.map((c, i) => resolveRefs(c, i, result)) };
}

/** Replaces ref:review/N and ref:asset/NAME in a content item with Asset:// addresses. */
function resolveRefs<T extends { type: string }>(item: T, index: number, result: PipelineResult): T {
  if (item.type === 'text') return item;
  const holder = (item as unknown as Record<string, { url: string }>)[item.type];
  const field = `generation.content[${index}].${item.type}.url`;
  const refused = (why: string) => ApplicationFailure.nonRetryable(`${field}: ${why}`, FailureType.InvalidReference);
  let resolved = holder.url;
  const r = REVIEW_REF.exec(holder.url);
  if (r) {
    const reviewed = result.review?.items[Number(r[1])];
    if (!reviewed?.passed || !reviewed.assetUrl) throw refused(`review item ${r[1]} did not pass review`);
    resolved = reviewed.assetUrl;
  }
  const a = ASSET_REF.exec(holder.url);
  if (a) {
    const asset = result.assets?.items.find((x) => x.name === a[1]);
    if (!asset) throw refused(`no created asset named ${a[1]}`);
    resolved = asset.assetUrl;
  }
  return { ...item, [item.type]: { ...holder, url: resolved } };
}
