/** A refused resolveCreate reads as the workflow's reason, not as the SDK's class name. */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { reportError } from '../../src/starters/cli/errors';
import { asResolveRefused, ResolveRefusedError } from '../../src/starters/client/resolve-refused';

const REASON = 'task bogus-id is unknown at the vendor (task not found); check the id in the vendor console';

test('the CLI prints the reason and exits 1; --json names the type', () => {
  const sdk = new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({ type: 'TaskIdRefused', message: REASON, nonRetryable: true }),
  );
  const err = asResolveRefused('p-1', sdk);
  expect(err).toBeInstanceOf(ResolveRefusedError);
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError); // callers that catch the SDK's class still do
  expect((err as ResolveRefusedError).cause).toBe(sdk.cause);
  const report = reportError(err);
  expect(report.code).toBe(1);
  expect(report.lines).toEqual([`reelflow: resolve refused: ${REASON}`]);
  expect(report.lines.join('\n')).not.toContain('WorkflowUpdateFailedError');
  expect(report.doc).toEqual({ kind: 'refused', type: 'TaskIdRefused', message: REASON, workflowId: 'p-1' });
});

test('other errors pass through unchanged', () => {
  const other = new Error('connection refused');
  expect(asResolveRefused('p-1', other)).toBe(other);
  const noCause = new WorkflowUpdateFailedError('Workflow Update failed', undefined);
  expect(asResolveRefused('p-1', noCause)).toBe(noCause);
});
