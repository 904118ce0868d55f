/**
 * A presigned GET for an archived object (docs/library.md "Archived files"): signed here,
 * with this process's own S3 credentials (a read-only key is enough), valid a few minutes.
 * The URL carries a signature: it is used at once and never written to a result, a log or
 * a message.
 */
import http from 'node:http';
import https from 'node:https';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createS3Client } from '../../config/object-store';
import { ArchiveFetchError } from './archive-fetch-error';

/** Five minutes: long enough to start a large download (it is checked at the start only). */
export const DEFAULT_PRESIGN_SECONDS = 300;

export async function presignedGet(
  bucket: string,
  key: string,
  client: S3Client = createS3Client(process.env),
  seconds: number = DEFAULT_PRESIGN_SECONDS,
): Promise<string> {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 604_800) {
    throw new ArchiveFetchError('presignSeconds must be a whole number from 1 to 604800', 'config', 'presignSeconds');
  }
  return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: seconds }).catch(
    (err: unknown) => {
      // The SDK names what is missing (credentials, region); it never quotes a secret.
      const cause = err instanceof Error ? err.message : String(err);
      throw new ArchiveFetchError(`cannot presign a download of s3://${bucket}/${key}: ${cause}`, 'config', 's3');
    },
  );
}

/**
 * The GET of a presigned URL, by node:http(s) rather than undici: undici 7.30 throws an
 * uncaught assertion (client-h1 `Parser.finish`, `!this.paused`) when a store closes the
 * connection after its answer while the body waits on a slow disk, which S3-compatible
 * servers without keep-alive do. `timeoutMs`: the socket's longest silence, headers and body.
 */
export function getPresigned(url: string, timeoutMs: number, signal?: AbortSignal): Promise<http.IncomingMessage> {
  const get = url.startsWith('https:') ? https.get : http.get;
  return new Promise((resolve, reject) => {
    const req = get(url, { timeout: timeoutMs, ...(signal ? { signal } : {}) }, resolve);
    req.on('timeout', () => req.destroy(new Error(`no answer for ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}
