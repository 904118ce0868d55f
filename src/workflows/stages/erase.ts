/**
 * Erase stage: refuse a too-late erase (the vendor only takes the ORIGINAL generated URL,
 * valid 24 h), create the erase task without duplicates, then poll it.
 */
import { ERASE_STATES, ERASE_TERMINAL_STATES } from '../../vendor-api/assumed-values';
import type { EraseStageResult } from '../../contract/messages';
import { CREATE_OPTIONS, creates, runQuery } from '../lib/proxies';
import { stageFailure } from '../lib/failures';
import { DEFAULT_POLICIES } from '../../contract/poll-policy';
import { createAndPollSingleTask, type SingleTaskInput } from '../lib/single-task';
import type { PipelineRuntime } from '../lib/pipeline-runtime';
import { ERASE_SAFETY_MARGIN_MS } from '../../contract/expiry';
import { FailureType } from '../../failures';
import type { StageDefinition } from '../lib/stage-definition';

export interface EraseStageInput extends SingleTaskInput {
  videoUrl: string;
  videoUrlExpiresAt: string;
}

export async function eraseStage(rt: PipelineRuntime, input: EraseStageInput): Promise<EraseStageResult> {
  const { profile } = input;
  if (!rt.board.knownTask('erase') && Date.now() + ERASE_SAFETY_MARGIN_MS > Date.parse(input.videoUrlExpiresAt)) {
    throw stageFailure(
      `erase refused: the original generated video URL expires at ${input.videoUrlExpiresAt} ` +
        '(valid 24 h from generation) and the vendor erases only original URLs; generate again',
      FailureType.VideoUrlExpired,
    );
  }
  const { taskId, task } = await createAndPollSingleTask({
    rt,
    input,
    kind: 'erase',
    endpoints: { create: 'erase.create', query: 'erase.get' },
    policy: DEFAULT_POLICIES.erase,
    terminal: ERASE_TERMINAL_STATES,
    known: ERASE_STATES,
    create: (n, callback, grant) =>
      creates.eraseCreate.executeWithOptions(
        {
          ...CREATE_OPTIONS,
          ...rt.board.taskOptions,
          startToCloseTimeout: input.createAttemptMs,
          summary: rt.board.summary(`create task (attempt ${n})`),
        },
        [{ profile, videoUrl: input.videoUrl, callback, ...(grant && { grant }) }],
      ),
    query: (id) => runQuery(rt, 'eraseGet', rt.board.summary(`poll ${id}`), [{ profile, taskId: id }]),
  });
  if (task.status !== 'SUCCESS' || !task.videoUrl) {
    throw stageFailure(
      `erase task ${taskId} ended ${task.status}${task.failReason ? `: ${task.failReason}` : ''}`,
      FailureType.EraseFailed,
    );
  }
  return { taskId, videoUrl: task.videoUrl };
}

/** Erases the generated video, once generation has made one; the erased video is archived. */
export const ERASE: StageDefinition<EraseStageInput, EraseStageResult> = {
  name: 'erase',
  enabled: (def) => def.erase,
  input: ({ def, result, common }) =>
    result.generation && {
      ...common,
      videoUrl: result.generation.videoUrl,
      videoUrlExpiresAt: result.generation.videoUrlExpiresAt,
      policy: def.options.ambiguousCreate.erase,
    },
  run: eraseStage,
  archives: (out) => ({ as: 'erased', output: out }),
};
