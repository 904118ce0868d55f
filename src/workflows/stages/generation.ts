/** Generation stage: create the (paid) video task without duplicates, then poll it. */
import { continueAsNew } from '@temporalio/workflow';
import { GENERATION_STATES, GENERATION_TERMINAL_STATES, ORIGINAL_URL_VALIDITY_MS } from '../../vendor-api/assumed-values';
import type { GenerationStageResult } from '../messages';
import { CREATE_OPTIONS, QUERY_OPTIONS, creates, queries } from '../lib/proxies';
import { stageFailure } from '../lib/create';
import { DEFAULT_POLICIES } from '../lib/poll';
import { createAndPollSingleTask, type SingleTaskInput } from '../lib/single-task';
import { StageRuntime } from '../lib/stage-runtime';
import type { StageOutput } from '../lib/stage-output';

export interface GenerationStageInput extends SingleTaskInput {
  /** Spec 2.1 body with references already resolved; callback_url is added per attempt. */
  request: Record<string, unknown>;
}

export async function generationStage(input: GenerationStageInput): Promise<StageOutput<GenerationStageResult>> {
  const rt = new StageRuntime('generation', input.resume?.carry);
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
    create: async (n, callback) => {
      const res = await creates.generationCreate.executeWithOptions(
        { ...CREATE_OPTIONS, startToCloseTimeout: input.createAttemptMs, summary: `create generation task (attempt ${n})` },
        [{ profile, request: input.request, callback }],
      );
      return { taskId: res.id };
    },
    query: (id) => queries.generationGet.executeWithOptions({ ...QUERY_OPTIONS, summary: `query generation ${id}` }, [{ profile, id }]),
    continueAsNew: (resume) => continueAsNew<typeof generationStage>({ ...input, resume }),
  });
  if (task.status === 'expired') {
    throw stageFailure(`generation task ${taskId} expired at the vendor before it produced a video`, 'GenerationExpired');
  }
  if (task.status !== 'succeeded' || !task.videoUrl) {
    const why = [task.errorCode, task.failReason].filter(Boolean).join(': ');
    throw stageFailure(`generation task ${taskId} ended ${task.status}${why ? `: ${why}` : ''}`, 'GenerationFailed');
  }
  return rt.output({
    taskId,
    videoUrl: task.videoUrl,
    videoUrlExpiresAt: new Date(producedAt(task) + ORIGINAL_URL_VALIDITY_MS).toISOString(),
  });
}

/**
 * Start of the video URL's 24 h: the vendor's finish time (`finished_at`, else the terminal
 * answer's `updated_at`), never later than when we first saw the task succeeded (now).
 */
export function producedAt(task: { finishedAt?: number; updatedAt?: number }): number {
  const vendorSeconds = task.finishedAt ?? task.updatedAt;
  const firstSeen = Date.now();
  return vendorSeconds === undefined ? firstSeen : Math.min(vendorSeconds * 1000, firstSeen);
}
