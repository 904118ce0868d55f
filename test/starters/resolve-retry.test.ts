import { ServiceError } from '@temporalio/client';
import { abortedBeforeTheWorkflowSawIt } from '../../src/starters/client/pipeline-client';

// What the client throws when the server aborts an Update with the workflow task it arrived in.
const grpc = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details });

describe('resolveCreate sends an Update again only when the server aborted it unseen', () => {
  test('FAILED_PRECONDITION "unexpected workflow task failure": sent again', () => {
    const err = new ServiceError('Workflow Update failed', {
      cause: grpc(9, 'Unable to perform workflow execution update due to unexpected workflow task failure.'),
    });
    expect(abortedBeforeTheWorkflowSawIt(err)).toBe(true);
  });

  test.each([
    ['another precondition', grpc(9, 'workflow execution already completed')],
    ['not found', grpc(5, 'workflow not found')],
    ['unavailable with the same words', grpc(14, 'unexpected workflow task failure')],
  ])('%s: not sent again', (_name, cause) => {
    expect(abortedBeforeTheWorkflowSawIt(new ServiceError('Workflow Update failed', { cause }))).toBe(false);
  });

  test('a refusal by the workflow (no gRPC cause): not sent again', () => {
    expect(abortedBeforeTheWorkflowSawIt(new Error('generation is not waiting for an operator decision'))).toBe(false);
  });
});
