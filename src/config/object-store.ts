/**
 * The archive's object store (docs/deploy.md "Archive to an object store"): where it is
 * (REELFLOW_ARCHIVE_STORE=s3://bucket/prefix) and the S3 client that reaches it, built from
 * the standard AWS variables so that any S3-compatible store (AWS, R2, TOS, OSS, GCS) works
 * without code. The worker uploads with it (src/activities/archive-store.ts); `reelflow
 * archive get` and fetchArchivedFile presign downloads with the caller's own credentials.
 *
 *   REELFLOW_ARCHIVE_STORE          s3://bucket[/prefix]; unset: the local folder (REELFLOW_ARCHIVE_DIR)
 *   REELFLOW_ARCHIVE_SSE            AES256 | aws:kms: server-side encryption of archived objects
 *   REELFLOW_ARCHIVE_SSE_KMS_KEY_ID the KMS key for aws:kms (default: the store's own key)
 *   AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL   the store's endpoint (default: AWS's)
 *   AWS_REGION, AWS_DEFAULT_REGION  its region (default us-east-1)
 *   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN  credentials (default: the
 *                                   SDK's chain: profile, web identity, instance role)
 *   REELFLOW_S3_FORCE_PATH_STYLE    1: https://endpoint/bucket/key rather than bucket.endpoint
 *                                   (AWS defines no variable for it; MinIO-style and test servers need it)
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { Env } from './env';

export interface ArchiveStore {
  bucket: string;
  /** Key prefix without leading or trailing slashes; '' for the bucket's root. */
  prefix: string;
}

export type ServerSideEncryption = 'AES256' | 'aws:kms';

/** What the worker's archive needs to reach its store. */
export interface ArchiveStoreConfig extends ArchiveStore {
  sse?: ServerSideEncryption;
  sseKmsKeyId?: string;
}

// S3's bucket rules (also R2, TOS, OSS): 3–63 of a-z 0-9 . -, starting and ending alphanumeric.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** `s3://bucket[/prefix]`, or the rule it breaks (for a message naming the variable). */
export function parseArchiveStore(raw: string): ArchiveStore | { problem: string } {
  const m = /^s3:\/\/([^/?#]+)(\/[^?#]*)?$/.exec(raw.trim());
  if (!m) return { problem: 'must be s3://bucket or s3://bucket/prefix' };
  const [, bucket, rest = ''] = m;
  if (!BUCKET.test(bucket) || bucket.includes('..')) {
    return { problem: 'names a bucket S3 does not allow (3-63 of a-z, 0-9, "." and "-")' };
  }
  const prefix = rest.replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && prefix.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    return { problem: 'has an empty, "." or ".." segment in its prefix' };
  }
  return { bucket, prefix };
}

const TRUE = /^(1|true|yes)$/i;

/** The S3 client's settings from the standard variables; explicit credentials only when both are set. */
export function s3ClientConfig(env: Env): S3ClientConfig {
  const endpoint = env.AWS_ENDPOINT_URL_S3?.trim() || env.AWS_ENDPOINT_URL?.trim();
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return {
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: TRUE.test(env.REELFLOW_S3_FORCE_PATH_STYLE?.trim() ?? ''),
    ...(accessKeyId && secretAccessKey
      ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } }
      : {}),
    // A store that is down is retried by the activity (with its own backoff), not for minutes here.
    maxAttempts: 3,
  };
}

export function createS3Client(env: Env): S3Client {
  return new S3Client(s3ClientConfig(env));
}

/** `s3://bucket/key`: how a result's `path` names an object. */
export function objectUrl(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}
