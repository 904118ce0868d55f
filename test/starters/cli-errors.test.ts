/** What the CLI prints for an error: plain words, never the Temporal SDK's class names. */
import { QueryNotRegisteredError, ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { FailureType } from '../../src/failures';
import { reportError } from '../../src/starters/cli/errors';

const SDK_NAMES = /WorkflowUpdateFailedError|WorkflowNotFoundError|ApplicationFailure|ServiceError|QueryNotRegistered/;

test.each([
  [
    'a rejected Update',
    new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ message: 'no step waits' })),
    ['reelflow: rejected: Workflow Update failed', '  caused by: no step waits'],
  ],
  [
    'a missing workflow met inside another call',
    new Error('status query failed', { cause: new WorkflowNotFoundError('workflow not found', 'wf-1', undefined) }),
    ['reelflow: error: status query failed', '  caused by: workflow not found'],
  ],
  ['a server error', new ServiceError('Failed to query workflow'), ['reelflow: error: Failed to query workflow']],
  [
    'a query the worker does not know',
    new QueryNotRegisteredError('unknown query type: status', 1),
    ['reelflow: error: unknown query type: status'],
  ],
])('%s: no SDK class name', (_label, err, lines) => {
  const report = reportError(err);
  expect(report.lines).toEqual(lines);
  expect(JSON.stringify(report)).not.toMatch(SDK_NAMES);
});

test("reelflow's own failure types stay: they name what went wrong", () => {
  const err = new Error('pipeline failed', {
    cause: ApplicationFailure.create({ type: FailureType.RejectedError, message: 'bad field' }),
  });
  expect(reportError(err).lines).toEqual(['reelflow: error: pipeline failed', '  caused by: RejectedError: bad field']);
});
