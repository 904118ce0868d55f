/**
 * Review stage: media split into valid batches (≤ 50 URLs, one type each), each batch
 * submitted without duplicates and polled (≥ 1 s apart, growing); `cancelled` stops
 * without resubmitting (docs/vendor-contract.md). Asset:// addresses come only from result.items[].
 */
import { REVIEW_STATES, REVIEW_TERMINAL_STATES } from '../../vendor-api/assumed-values';
import { planReviewBatches, type ReviewBatch } from '../../vendor-api/batching';
import { RejectedError } from '../../vendor-api/errors';
import type { ReviewItemResult, ReviewStageResult } from '../../contract/messages';
import { CREATE_OPTIONS, creates, runQuery } from '../lib/proxies';
import { createWithoutDuplicates, type CreatePolicy, type CreateSpec } from '../create/create';
import { waitForCallbackTaskId } from '../create/callback-grace';
import { stageFailure } from '../lib/failures';
import { DEFAULT_POLICIES, isOneOf } from '../../contract/poll-policy';
import { pollUntilDone } from '../lib/poll/poll';
import type { PipelineRuntime } from '../lib/pipeline-runtime';
import type { StageCommon } from '../lib/stage-common';
import { FailureType } from '../../failures';
import type { StageDefinition } from '../lib/stage-definition';

export interface ReviewStageInput extends StageCommon {
  media: string[];
  assetType?: 'Image' | 'Video' | 'Audio';
  groupId?: string;
  groupSource?: '' | 'real_person';
  requireAllPassed: boolean;
  policy: CreatePolicy;
}

export async function reviewStage(rt: PipelineRuntime, input: ReviewStageInput): Promise<ReviewStageResult> {
  const batches = planBatches(input);
  const progress = batches.map(() => ({ done: 0, total: 0 }));
  const updateProgress = () => {
    const done = progress.reduce((s, p) => s + p.done, 0);
    const total = progress.reduce((s, p) => s + p.total, 0) || input.media.length;
    if (rt.board.progress?.done !== done || rt.board.progress?.total !== total) {
      rt.board.progress = { done, total };
      rt.board.refresh();
    }
  };
  const results = await Promise.all(
    batches.map((batch, i) => runBatch(rt, input, batch, i, progress[i], updateProgress)),
  );
  const items = itemResults(input.media, results);
  const failed = items.filter((i) => !i.passed);
  if (input.requireAllPassed && failed.length > 0) {
    const list = failed
      .slice(0, 5)
      .map((i) => `review.media[${i.index}] (${i.errorCode ?? 'no code'}: ${i.errorMessage ?? 'not passed'})`)
      .join(', ');
    throw stageFailure(
      `${failed.length} of ${items.length} media did not pass review: ${list}`,
      FailureType.ReviewNotPassed,
      { items },
    );
  }
  return {
    batches: results.map(({ batch, task }) => ({
      taskId: task.taskId,
      status: task.status,
      size: batch.urls.length,
      assetType: batch.assetType,
    })),
    items,
  };
}

/** Reviews the definition's media; nothing to archive (its outputs are Asset:// addresses). */
export const REVIEW: StageDefinition<ReviewStageInput, ReviewStageResult> = {
  name: 'review',
  enabled: (def) => def.review !== undefined,
  input: ({ def, common }) => ({ ...common, ...def.review!, policy: def.options.ambiguousCreate.review }),
  run: reviewStage,
};

/** Valid batches (at most 50 URLs, one media type each); a medium that fits none fails the stage. */
function planBatches(input: Pick<ReviewStageInput, 'media' | 'assetType'>): ReviewBatch[] {
  try {
    return planReviewBatches(input.media, { assetType: input.assetType });
  } catch (err) {
    if (err instanceof RejectedError) {
      throw stageFailure(err.message.replace(/urls\[(\d+)\]/, 'review.media[$1]'), FailureType.RejectedError);
    }
    throw err;
  }
}

type BatchOutcome = Awaited<ReturnType<typeof runBatch>>;

/** One result per medium of the definition, in its order, from the batches' result items. */
function itemResults(media: string[], results: BatchOutcome[]): ReviewItemResult[] {
  const items: ReviewItemResult[] = media.map((sourceUrl, index) => ({
    index,
    sourceUrl,
    passed: false,
    errorMessage: 'no result item for this URL',
  }));
  results.forEach(({ batch, task }) => {
    for (const item of task.items) {
      const pos = batch.urls.indexOf(item.sourceUrl);
      if (pos < 0) continue;
      const index = batch.indexes[pos];
      items[index] = {
        index,
        sourceUrl: item.sourceUrl,
        passed: item.passed && Boolean(item.assetUrl),
        assetUrl: item.passed ? item.assetUrl : undefined,
        assetId: item.assetId,
        downstreamFinalUrl: item.downstreamFinalUrl,
        errorCode: item.errorCode,
        errorMessage: item.errorMessage,
      };
    }
  });
  return items;
}

/**
 * One batch: submitted without duplicates, then polled. Its awaits stay in this function:
 * batches run in parallel, and their commands keep the order recorded histories have.
 */
async function runBatch(
  rt: PipelineRuntime,
  input: ReviewStageInput,
  batch: ReviewBatch,
  index: number,
  progress: { done: number; total: number },
  onProgress: () => void,
) {
  const step = `review-b${index}`;
  const created = await createWithoutDuplicates(submitSpec(rt, input, batch, index, step));
  const taskId = created.value.taskId;
  progress.total = batch.urls.length;
  const task = await pollUntilDone({
    rt,
    step,
    label: `review task ${taskId}`,
    subject: taskId,
    endpoint: 'review.getTask',
    policy: DEFAULT_POLICIES.review,
    callbacks: input.callbacks,
    deadlineMs: input.deadlineMs,
    query: () =>
      runQuery(rt, 'reviewGetTask', rt.board.summary(`poll ${taskId}`), [{ profile: input.profile, taskId }]),
    done: (t) => isOneOf(t.status, REVIEW_TERMINAL_STATES),
    states: { of: (t) => t.status, known: REVIEW_STATES },
    notFoundGraceMs: input.notFoundGraceMs,
    onValue: (t) => {
      rt.board.setState('review', taskId, t.status);
      progress.done = t.done ?? progress.done;
      progress.total = t.total ?? progress.total;
      onProgress();
    },
  });
  rt.book.settle(step);
  if (task.status === 'cancelled') {
    throw stageFailure(
      `review task ${taskId} was cancelled at the vendor; not resubmitted (spec 3.3)`,
      FailureType.ReviewCancelled,
    );
  }
  if (task.status === 'failed') {
    throw stageFailure(`review task ${taskId} failed at the vendor`, FailureType.ReviewFailed);
  }
  rt.board.refresh();
  return { batch, task };
}

/** The batch's submit: reconciled by callback (the task a callback names, with proof). */
function submitSpec(
  rt: PipelineRuntime,
  input: ReviewStageInput,
  batch: ReviewBatch,
  index: number,
  step: string,
): CreateSpec<{ taskId: string; callbackUsed: boolean }> {
  const { profile } = input;
  return {
    rt,
    step,
    kind: 'review',
    label: `review batch ${index} submit`,
    action: `submit batch ${index}`,
    endpoint: 'review.submitAsync',
    policy: input.policy,
    create: (n, grant) =>
      creates.reviewSubmit.executeWithOptions(
        {
          ...CREATE_OPTIONS,
          ...rt.board.taskOptions,
          startToCloseTimeout: input.createAttemptMs,
          summary: rt.board.summary(`submit batch ${index}: ${batch.urls.length} ${batch.assetType} (attempt ${n})`),
        },
        [
          {
            profile,
            urls: batch.urls,
            assetType: batch.assetType,
            groupId: input.groupId,
            groupSource: input.groupSource,
            callback: input.callbacks ? rt.book.callbackRef(step, n) : undefined,
            ...(grant && { grant }),
          },
        ],
      ),
    taskIdOf: (v) => v.taskId,
    reconcile: async (n) => {
      const id = await waitForCallbackTaskId(rt, step, n, input.callbacks, input.callbackGraceMs);
      return id ? { taskId: id, callbackUsed: true } : undefined;
    },
    fromTaskId: (id) => ({ taskId: id, callbackUsed: input.callbacks }),
    proof: { profile, kind: 'review', endpoint: 'review.getTask', expect: { urls: batch.urls } },
  };
}
