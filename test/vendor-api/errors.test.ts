/**
 * The vendor error classes: each keeps its failure type as `name`, its place in the class
 * tree, and the `retryable` its meaning decides (whatever the caller passed) or, where the
 * meaning leaves it open, the caller's.
 */
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
  VendorError,
  toFailureInfo,
} from '../../src/vendor-api/errors';

const opts = { endpoint: 'generation.create', status: 400, field: 'model', retryAfterMs: 1_000 };

test.each([
  [NotSentError, true],
  [RateLimitedError, true],
  [RejectedError, false],
  [NotFoundError, false],
  [UnauthorizedError, false],
  [ForbiddenError, false],
  [MissingCredentialError, false],
] as const)('%p is retryable=%p whatever the caller says', (Class, retryable) => {
  for (const asked of [true, false, undefined]) {
    const err = new Class('m', { ...opts, retryable: asked });
    expect(err.retryable).toBe(retryable);
    expect(err.name).toBe(Class.name);
    expect(err).toBeInstanceOf(VendorError);
    expect(err).toMatchObject({ message: 'm', endpoint: 'generation.create', status: 400, field: 'model' });
    expect(toFailureInfo(err)).toMatchObject({ type: Class.name, retryable });
  }
});

test.each([VendorError, AmbiguousError, ResponseShapeError, UpstreamFailedError])(
  '%p takes the caller’s retryable (default false)',
  (Class) => {
    expect(new Class('m', { ...opts, retryable: true }).retryable).toBe(true);
    expect(new Class('m', opts).retryable).toBe(false);
    expect(new Class('m', opts).name).toBe(Class.name);
  },
);

test('the class tree and the cause stay', () => {
  const cause = new Error('socket');
  const shape = new ResponseShapeError('m', { endpoint: 'x', cause });
  expect(shape).toBeInstanceOf(AmbiguousError);
  expect(shape.cause).toBe(cause);
  const notFound = new NotFoundError('m', { endpoint: 'x', vendorMessage: 'no such task' });
  expect(notFound).toBeInstanceOf(RejectedError);
  expect(notFound.vendorMessage).toBe('no such task');
  expect(new UnauthorizedError('m', { endpoint: 'x' })).not.toBeInstanceOf(RejectedError);
});
