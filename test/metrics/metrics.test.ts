/**
 * The pure parts of the metrics: which `outcome` each vendor error class is counted as,
 * and the visibility query behind reelflow_operator_waits. (The series themselves are
 * checked end to end in test/workflows/metrics.e2e.test.ts.)
 */
import { vendorCallOutcome } from '../../src/metrics/activity';
import { operatorWaitsQuery } from '../../src/metrics/operator-waits';
import {
  AmbiguousError,
  ForbiddenError,
  MissingCredentialError,
  NotFoundError,
  NotSentError,
  RateLimitedError,
  RejectedError,
  ResponseShapeError,
  UnauthorizedError,
  UpstreamFailedError,
  VendorConfigError,
  VendorError,
} from '../../src/vendor-api/errors';

const opts = { endpoint: 'generation.create' };

test.each<[Error, string]>([
  [new RateLimitedError('429', opts), 'rate_limited'],
  [new AmbiguousError('reset after send', opts), 'ambiguous'],
  [new ResponseShapeError('unreadable 2xx', opts), 'ambiguous'],
  [new NotSentError('refused', opts), 'not_sent'],
  [new RejectedError('400', opts), 'rejected'],
  [new NotFoundError('404', opts), 'not_found'],
  [new UnauthorizedError('401', opts), 'unauthorized'],
  [new ForbiddenError('403', opts), 'forbidden'],
  [new UpstreamFailedError('502', opts), 'upstream_failed'],
  [new MissingCredentialError('no key', opts), 'missing_credential'],
  [new VendorError('base class', opts), 'error'],
  [new TypeError('a bug'), 'error'],
])('%s is counted as %s', (err, outcome) => {
  expect(vendorCallOutcome(err)).toBe(outcome);
});

test('a profile this worker does not serve is no vendor call: not counted', () => {
  expect(vendorCallOutcome(new VendorConfigError('profile "x" is not served', 'REELFLOW_PROFILES'))).toBeUndefined();
});

test('operator waits are counted per task queue, running pipelines only', () => {
  expect(operatorWaitsQuery('reelflow')).toBe(
    "TaskQueue = 'reelflow' AND ExecutionStatus = 'Running' AND ReelflowStatus = 'waiting-operator'",
  );
});
