/**
 * The archive's object-store settings (src/config/object-store.ts, src/workers/config.ts):
 * REELFLOW_ARCHIVE_STORE parsed or refused by name, the S3 client's settings from the
 * standard AWS variables, and no key in the worker's description.
 */
import { parseArchiveStore, s3ClientConfig } from '../../src/config/object-store';
import { describeWorkerConfig, loadWorkerConfig } from '../../src/workers/config';

test.each([
  ['s3://reelflow', { bucket: 'reelflow', prefix: '' }],
  ['s3://reelflow/', { bucket: 'reelflow', prefix: '' }],
  ['s3://my.bucket-1/archive/prod/', { bucket: 'my.bucket-1', prefix: 'archive/prod' }],
])('%s is a store', (raw, store) => {
  expect(parseArchiveStore(raw)).toEqual(store);
});

test.each([
  ['https://reelflow/archive', /must be s3:\/\/bucket/],
  ['s3://', /must be s3:\/\/bucket/],
  ['s3://Upper/archive', /bucket S3 does not allow/],
  ['s3://ab', /bucket S3 does not allow/],
  ['s3://a..b/x', /bucket S3 does not allow/],
  ['s3://reelflow/a//b', /empty, "\." or "\.\." segment/],
  ['s3://reelflow/a/../b', /empty, "\." or "\.\." segment/],
  ['s3://reelflow/a?x=1', /must be s3:\/\/bucket/],
])('%s is refused', (raw, why) => {
  expect(parseArchiveStore(raw)).toEqual({ problem: expect.stringMatching(why) });
});

test('the S3 client reads the standard variables; credentials only when both are set', () => {
  expect(
    s3ClientConfig({
      AWS_ENDPOINT_URL: 'http://generic:1',
      AWS_ENDPOINT_URL_S3: 'http://s3-only:2',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret-example',
      REELFLOW_S3_FORCE_PATH_STYLE: '1',
    }),
  ).toMatchObject({
    endpoint: 'http://s3-only:2',
    region: 'eu-west-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example' },
  });
  const defaults = s3ClientConfig({ AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE' });
  expect(defaults).toMatchObject({ region: 'us-east-1', forcePathStyle: false });
  expect(defaults).not.toHaveProperty('credentials'); // the SDK's own chain
  expect(defaults).not.toHaveProperty('endpoint');
});

test('the worker takes the store and its encryption, and describes it without a key', () => {
  const env = {
    REELFLOW_ARCHIVE_STORE: 's3://reelflow/archive',
    REELFLOW_ARCHIVE_SSE: 'aws:kms',
    REELFLOW_ARCHIVE_SSE_KMS_KEY_ID: 'key-1',
    AWS_SECRET_ACCESS_KEY: 'secret-example',
  };
  const c = loadWorkerConfig(env, { cores: 2 });
  expect(c.archiveStore).toEqual({ bucket: 'reelflow', prefix: 'archive', sse: 'aws:kms', sseKmsKeyId: 'key-1' });
  const line = describeWorkerConfig(c);
  expect(line).toContain('archiveStore=s3://reelflow/archive (sse aws:kms)');
  expect(line).not.toContain('archiveRoot=');
  expect(line).not.toContain('secret-example');
});

test.each([
  [{ REELFLOW_ARCHIVE_STORE: 'reelflow' }, 'REELFLOW_ARCHIVE_STORE', /must be s3:\/\/bucket/],
  [{ REELFLOW_ARCHIVE_SSE: 'AES256' }, 'REELFLOW_ARCHIVE_SSE', /set REELFLOW_ARCHIVE_STORE too/],
  [
    { REELFLOW_ARCHIVE_STORE: 's3://reelflow', REELFLOW_ARCHIVE_SSE: 'aes' },
    'REELFLOW_ARCHIVE_SSE',
    /AES256 or aws:kms/,
  ],
])('%o: an error naming %s', (env, variable, why) => {
  const thrown = thrownBy(() => loadWorkerConfig(env, { cores: 2 }));
  expect(thrown).toMatchObject({
    name: 'WorkerConfigError',
    variables: [variable],
    message: expect.stringMatching(why),
  });
});

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}
