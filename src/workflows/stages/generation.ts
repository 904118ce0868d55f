/** Generation stage: create the (paid) video task without duplicates, then poll it. */
import { continueAsNew } from '@temporalio/workflow';
import { GENERATION_TERMINAL_STATES } from '../../vendor/assumptions';
import type { GenerationStageResult } from '../messages';
import { CREATE_OPTIONS, QUERY_OPTIONS, creates, queries } from '../lib/activities';
import { createWithoutDuplicates, stageFailure, waitForCallbackTaskId, type CreatePolicy } from '../lib/create';
import { DEFAULT_POLICIES, pollUntilDone } from '../lib/poll';
import { StageRuntime, type StageCarry } from '../lib/stage-runtime';
import type { StageCommon, StageOutput } from '../lib/stage-output';

/** The original generated video URL is valid 24 hours from generation (spec 4.2, 8). */
export const ORIGINAL_URL_VALIDITY_MS = 24 * 3_600_000;

export interface GenerationStageInput extends StageCommon {
  /** Spec 2.1 body with references already resolved; callback_url is added per attempt. */
  request: Record<string, unknown>;
  policy: CreatePolicy;
  /** Set by continue-as-new: the task is known, keep polling it. */
  resume?: { taskId: string; attempt: number; startedAt: number; carry: StageCarry };
}

const STEP = 'generation';

export async function generationStage(input: GenerationStageInput): Promise<StageOutput<GenerationStageResult>> {
  const rt = new StageRuntime('generation', input.resume?.carry);
  const { profile } = input;
  let taskId: string;
  let attempt: number;
  if (input.resume) {
    ({ taskId, attempt } = input.resume);
    rt.beginAttempt(STEP, attempt, 'generation');
  } else {
    const created = await createWithoutDuplicates({
      rt,
      step: STEP,
      kind: 'generation',
      label: 'generation create',
      endpoint: 'generation.create',
      policy: input.policy,
      create: (n) =>
        creates.generationCreate.executeWithOptions({ ...CREATE_OPTIONS, startToCloseTimeout: input.createAttemptMs, summary: `create generation task (attempt ${n})` }, [
          { profile, request: input.request, callback: input.callbacks ? { step: STEP, attempt: n } : undefined },
        ]),
      taskIdOf: (v) => v.id,
      reconcile: async (n) => {
        const id = await waitForCallbackTaskId(rt, STEP, n, input.callbacks, input.callbackGraceMs);
        return id ? { id, callbackUsed: true } : undefined;
      },
      fromTaskId: (id) => ({ id, callbackUsed: input.callbacks }),
    });
    taskId = created.value.id;
    attempt = created.attempt;
  }
  const startedAt = input.resume?.startedAt ?? Date.now();
  rt.detail = `generation task ${taskId}`;
  const task = await pollUntilDone({
    rt,
    step: STEP,
    label: `generation task ${taskId}`,
    endpoint: 'generation.get',
    policy: DEFAULT_POLICIES.generation,
    callbacks: input.callbacks,
    deadlineMs: input.deadlineMs,
    startedAt,
    query: () => queries.generationGet.executeWithOptions({ ...QUERY_OPTIONS, summary: `query generation ${taskId}` }, [{ profile, id: taskId }]),
    done: (t) => (GENERATION_TERMINAL_STATES as readonly string[]).includes(t.status),
    onValue: (t) => {
      if (rt.vendorTasks.find((x) => x.id === taskId)?.state !== t.status) {
        rt.setState('generation', taskId, t.status);
        rt.detail = `generation task ${taskId}: ${t.status}`;
        rt.report();
      }
    },
    continueAsNew: () =>
      continueAsNew<typeof generationStage>({ ...input, resume: { taskId, attempt, startedAt, carry: rt.carry() } }),
  });
  if (task.status !== 'succeeded' || !task.videoUrl) {
    throw stageFailure(
      `generation task ${taskId} ended ${task.status}${task.failReason ? `: ${task.failReason}` : ''}`,
      'GenerationFailed',
    );
  }
  const producedAt = task.finishedAt ? task.finishedAt * 1000 : Date.now();
  return rt.output({
      taskId,
      videoUrl: task.videoUrl,
      videoUrlExpiresAt: new Date(producedAt + ORIGINAL_URL_VALIDITY_MS).toISOString(),
    });
}
