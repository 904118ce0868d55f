/**
 * Erase stage: refuse a too-late erase (the vendor only takes the ORIGINAL generated URL,
 * valid 24 h), create the erase task without duplicates, then poll it.
 */
import { continueAsNew } from '@temporalio/workflow';
import type { EraseStageResult } from '../messages';
import { CREATE_OPTIONS, QUERY_OPTIONS, creates, queries } from '../lib/activities';
import { createWithoutDuplicates, stageFailure, waitForCallbackTaskId, type CreatePolicy } from '../lib/create';
import { DEFAULT_POLICIES, pollUntilDone } from '../lib/poll';
import { StageRuntime, type StageCarry } from '../lib/stage-runtime';
import type { StageCommon, StageOutput } from '../lib/stage-output';

const ERASE_TERMINAL = ['SUCCESS', 'FAILURE'];
/** Time an erase needs before the source URL expires; closer than this, we refuse. */
export const ERASE_SAFETY_MARGIN_MS = 10 * 60_000;

export interface EraseStageInput extends StageCommon {
  videoUrl: string;
  videoUrlExpiresAt: string;
  policy: CreatePolicy;
  resume?: { taskId: string; attempt: number; startedAt: number; carry: StageCarry };
}

const STEP = 'erase';

export async function eraseStage(input: EraseStageInput): Promise<StageOutput<EraseStageResult>> {
  const rt = new StageRuntime('erase', input.resume?.carry);
  const { profile } = input;
  let taskId: string;
  let attempt: number;
  if (input.resume) {
    ({ taskId, attempt } = input.resume);
    rt.beginAttempt(STEP, attempt, 'erase');
  } else {
    const expiresAt = Date.parse(input.videoUrlExpiresAt);
    if (Date.now() + ERASE_SAFETY_MARGIN_MS > expiresAt) {
      throw stageFailure(
        `erase refused: the original generated video URL expires at ${input.videoUrlExpiresAt} ` +
          '(valid 24 h from generation) and the vendor erases only original URLs; generate again',
        'VideoUrlExpired',
      );
    }
    const created = await createWithoutDuplicates({
      rt,
      step: STEP,
      kind: 'erase',
      label: 'erase create',
      endpoint: 'erase.create',
      policy: input.policy,
      create: (n) =>
        creates.eraseCreate.executeWithOptions({ ...CREATE_OPTIONS, startToCloseTimeout: input.createAttemptMs, summary: `create erase task (attempt ${n})` }, [
          { profile, videoUrl: input.videoUrl, callback: input.callbacks ? { step: STEP, attempt: n } : undefined },
        ]),
      taskIdOf: (v) => v.taskId,
      reconcile: async (n) => {
        const id = await waitForCallbackTaskId(rt, STEP, n, input.callbacks, input.callbackGraceMs);
        return id ? { taskId: id, requestId: '', callbackUsed: true } : undefined;
      },
      fromTaskId: (id) => ({ taskId: id, requestId: '', callbackUsed: input.callbacks }),
    });
    taskId = created.value.taskId;
    attempt = created.attempt;
  }
  const startedAt = input.resume?.startedAt ?? Date.now();
  rt.detail = `erase task ${taskId}`;
  const task = await pollUntilDone({
    rt,
    step: STEP,
    label: `erase task ${taskId}`,
    endpoint: 'erase.get',
    policy: DEFAULT_POLICIES.erase,
    callbacks: input.callbacks,
    deadlineMs: input.deadlineMs,
    startedAt,
    query: () => queries.eraseGet.executeWithOptions({ ...QUERY_OPTIONS, summary: `query erase ${taskId}` }, [{ profile, taskId }]),
    done: (t) => ERASE_TERMINAL.includes(t.status),
    onValue: (t) => {
      if (rt.vendorTasks.find((x) => x.id === taskId)?.state !== t.status) {
        rt.setState('erase', taskId, t.status);
        rt.detail = `erase task ${taskId}: ${t.status}`;
        rt.report();
      }
    },
    continueAsNew: () => continueAsNew<typeof eraseStage>({ ...input, resume: { taskId, attempt, startedAt, carry: rt.carry() } }),
  });
  if (task.status !== 'SUCCESS' || !task.videoUrl) {
    throw stageFailure(`erase task ${taskId} ended ${task.status}${task.failReason ? `: ${task.failReason}` : ''}`, 'EraseFailed');
  }
  return rt.output({ taskId, videoUrl: task.videoUrl });
}
