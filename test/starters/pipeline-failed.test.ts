/**
 * PipelineFailedError from a failure chain, without a server: a run recorded before the
 * workflow attached its details still yields its stage and vendor code; a cancelled one
 * has no type; the CLI prints reelflow's own message, not the SDK's "Workflow execution failed".
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState } from '@temporalio/common';
import { FailureType } from '../../src/failures';
import { failureChain, outcomeOf } from '../../src/starters/client/pipeline-client';
import { outcomeDocument, outcomeMessages } from '../../src/starters/cli/follow';
import { renderFailure } from '../../src/starters/client/progress';
import { PipelineFailedError } from '../../src/starters/client/pipeline-failed';

const vendorError = ApplicationFailure.create({
  type: FailureType.RejectedError,
  message: 'erase.create: 400 bad video',
  details: [{ vendorCode: 'InvalidParameter', field: 'video_url' }],
});
const activity = new ActivityFailure(
  'activity failed',
  'eraseCreate',
  '7',
  RetryState.NON_RETRYABLE_FAILURE,
  'w',
  vendorError,
);
const stage = ApplicationFailure.create({
  type: FailureType.RejectedError,
  message: 'erase create rejected',
  cause: activity,
});

function pipelineFailed(details?: unknown): WorkflowFailedError {
  const top = ApplicationFailure.create({
    type: FailureType.PipelineFailed,
    message: 'pipeline p-1 failed in stage erase: erase create rejected',
    cause: stage,
    ...(details ? { details: [details] } : {}),
  });
  return new WorkflowFailedError('Workflow execution failed', top, RetryState.NON_RETRYABLE_FAILURE);
}

test('a run with details: the stage, vendor code and vendor tasks it attached', () => {
  const tasks = [
    { kind: 'generation', id: 'cgt-1', step: 'generation', attempt: 1, via: 'create', state: 'succeeded' },
  ];
  const err = outcomeOf('p-1', pipelineFailed({ stage: 'erase', vendorCode: 'E42', vendorTasks: tasks })).error;
  expect(err).toBeInstanceOf(PipelineFailedError);
  expect(err).toMatchObject({ status: 'failed', type: 'RejectedError', stage: 'erase', vendorCode: 'E42' });
  expect(err.vendorTasks).toEqual(tasks);
  expect(err.message).toBe('pipeline p-1 failed in stage erase: erase create rejected');
});

test('a run recorded before the details: stage from the message, vendor code from the chain', () => {
  const sdk = pipelineFailed();
  const err = outcomeOf('p-1', sdk).error;
  expect(err).toMatchObject({ type: 'RejectedError', stage: 'erase', vendorCode: 'InvalidParameter', vendorTasks: [] });
  expect(err.cause).toBe(sdk);
  expect(failureChain(err)).toEqual(failureChain(sdk));
});

test('cancelled: no type, no stage; a foreign error is rethrown as it is', () => {
  const err = outcomeOf(
    'p',
    new WorkflowFailedError('x', new CancelledFailure('cancelled'), RetryState.NON_RETRYABLE_FAILURE),
  ).error;
  expect(err).toMatchObject({ status: 'cancelled', vendorTasks: [] });
  expect(err.type).toBeUndefined();
  expect(err.stage).toBeUndefined();
  expect(() => outcomeOf('p', new Error('connection lost'))).toThrow('connection lost');
});

test("`result` prints reelflow's message (PipelineFailedError's), then the causes; not the SDK's", () => {
  const outcome = outcomeOf('p-1', pipelineFailed());
  const lines = renderFailure('pipeline p-1 failed', outcomeMessages(outcome));
  expect(lines).toEqual([
    'pipeline p-1 failed: pipeline p-1 failed in stage erase: erase create rejected',
    '  caused by: RejectedError: erase create rejected',
    '  caused by: activity eraseCreate failed (id 7)',
    '  caused by: RejectedError: erase.create: 400 bad video',
  ]);
  expect(lines.join('\n')).not.toMatch(/Workflow execution failed/);
  // --json: the same message; the chain keeps every line, the SDK's included, for scripts.
  expect(outcomeDocument(outcome)).toMatchObject({
    error: {
      message: 'pipeline p-1 failed in stage erase: erase create rejected',
      chain: failureChain(pipelineFailed()),
    },
  });
});
