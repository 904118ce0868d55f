/**
 * The archive's object store (REELFLOW_ARCHIVE_STORE): its bucket answers the worker's
 * credentials (HeadBucket). Names what is wrong (credentials refused, no such bucket, the
 * region) by its variable; never a key's value.
 */
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { createS3Client, objectUrl, s3ClientConfig } from '../../config/object-store';
import type { Env } from '../../vendor-api/config';
import type { WorkerConfig } from '../config';
import { fail, pass, type CheckResult } from './check';

const ID = 'archive.store';
const TITLE = 'archive object store';
const CREDENTIALS_FIX =
  "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be a key of this store that may read and write the bucket (or unset both for the SDK's profile or role)";

/** The endpoint's host only: an endpoint URL may carry credentials. */
function endpointOf(env: Env): string {
  const raw = s3ClientConfig(env).endpoint;
  if (typeof raw !== 'string') return 'AWS';
  return URL.canParse(raw) ? new URL(raw).host : 'an unparseable AWS_ENDPOINT_URL_S3';
}

export async function objectStoreCheck(config: WorkerConfig, env: Env): Promise<CheckResult> {
  const store = config.archiveStore!;
  const where = `${objectUrl(store.bucket, store.prefix)} at ${endpointOf(env)}`;
  const client = createS3Client(env);
  try {
    await client.send(new HeadBucketCommand({ Bucket: store.bucket }), { abortSignal: AbortSignal.timeout(10_000) });
    return pass(ID, TITLE, `${where}: the bucket answers`);
  } catch (err) {
    const e = err as Error & { $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode;
    if (status === 403 || status === 401) {
      return {
        ...fail(ID, TITLE, `${where}: the store refused the credentials (HTTP ${status})`, CREDENTIALS_FIX),
        definitive: true,
      };
    }
    if (status === 404) {
      const fix = 'create the bucket, or fix REELFLOW_ARCHIVE_STORE (or AWS_ENDPOINT_URL_S3 when it is another store)';
      return { ...fail(ID, TITLE, `${where}: no such bucket "${store.bucket}" (HTTP 404)`, fix), definitive: true };
    }
    if (status === 301 || status === 400) {
      return fail(ID, TITLE, `${where}: answered HTTP ${status} (${e.name})`, "AWS_REGION must be the bucket's region");
    }
    const said = status ? `HTTP ${status} (${e.name})` : `${e.name}: ${e.message}`;
    return fail(ID, TITLE, `${where}: ${said}`, 'AWS_ENDPOINT_URL_S3 must reach the store, and the store must be up');
  } finally {
    client.destroy();
  }
}
