/**
 * archiveOutput into an object store (REELFLOW_ARCHIVE_STORE; docs/deploy.md "Archive to an
 * object store"): the same guarantees as the local folder (./archive.ts), on S3's terms.
 *
 * - Key: `<prefix>/<tenant>/<pipeline>/<task>/<name>`, each id one segment by the folder's
 *   injective encoding (./archive-files.ts); the tenant is the task's fairness key (the
 *   pipeline's tenant, docs/tenants.md) or `_shared`, so a bucket policy can separate tenants.
 * - Streams: the vendor's body goes through a hashing counter into a multipart upload
 *   (@aws-sdk/lib-storage) of PART_SIZE parts, QUEUE_SIZE in flight: memory is bounded by
 *   their product, whatever the file's size. Each part carries a CRC32 checksum the store
 *   verifies; the sha256 of the whole is computed on the way and written last, to
 *   `<key>.sha256` (sha256sum format), whose metadata names the object's ETag.
 * - Idempotent: an object whose recorded source is this one, with a sidecar naming its ETag,
 *   is returned without a request to the vendor.
 * - A partial upload never looks complete: a failed upload is aborted (lib-storage), and the
 *   uploads a killed attempt left behind for this key are aborted before the next begins.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Context } from '@temporalio/activity';
import type { ArchivedFile } from '../contract/messages';
import { asStoreError, inStore, redactUrl, sizeMismatch, tooLarge } from './archive-failures';

/** Where the archive goes when it is an object store (src/config/object-store.ts builds it). */
export interface ObjectStoreTarget {
  client: S3Client;
  bucket: string;
  /** Key prefix without leading or trailing slashes; '' for none. */
  prefix: string;
  sse?: 'AES256' | 'aws:kms';
  sseKmsKeyId?: string;
}

/** 8 MiB parts, 2 in flight: at most 16 MiB of a file in memory per upload. */
export const PART_SIZE = 8 * 2 ** 20;
const QUEUE_SIZE = 2;

/** A key segment for pipelines of no tenant: `_` never starts an encoded id. */
const NO_TENANT = '_shared';

/** What one upload streams: the vendor's body, its limits, and how to report progress. */
export interface StoreUpload {
  name: string;
  url: string;
  taskId: string | undefined;
  body: AsyncIterable<Buffer>;
  declared: number | undefined;
  expectedBytes: number | undefined;
  maxBytes: number;
  heartbeatEvery: number;
}

export function objectKeyOf(target: ObjectStoreTarget, segments: readonly string[]): string {
  return [target.prefix, ...segments].filter((s) => s !== '').join('/');
}

/** The key's tenant segment: the fairness key the pipeline's tasks carry, encoded by `encode`. */
export function tenantSegment(encode: (raw: string) => string): string {
  const tenant = Context.current().info.priority?.fairnessKey;
  return tenant ? encode(tenant) : NO_TENANT;
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/** The object's head, undefined when there is none; any other answer (403, 5xx) throws. */
async function headOf(target: ObjectStoreTarget, key: string) {
  return inStore(target.client.send(new HeadObjectCommand({ Bucket: target.bucket, Key: key }))).catch((err) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
}

const etagOf = (raw: string | undefined) => (raw ?? '').replace(/"/g, '');

/** The stored object when its source is this one and its sidecar names it; else undefined. */
export async function existingObject(
  target: ObjectStoreTarget,
  key: string,
  source: { url: string; taskId: string | undefined; expectedBytes: number | undefined },
): Promise<{ sha256: string; bytes: number } | undefined> {
  const head = await headOf(target, key);
  const meta = head?.Metadata ?? {};
  if (!head || meta['source-url'] !== redactUrl(source.url)) return undefined;
  if ((meta['task-id'] ?? '') !== encodeURIComponent(source.taskId ?? '')) return undefined;
  const bytes = head.ContentLength ?? -1;
  if (source.expectedBytes !== undefined && bytes !== source.expectedBytes) return undefined;
  const sidecar = await inStore(
    target.client.send(new GetObjectCommand({ Bucket: target.bucket, Key: `${key}.sha256` })),
  ).catch((err) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
  if (!sidecar?.Body || etagOf(sidecar.Metadata?.etag) !== etagOf(head.ETag)) return undefined;
  const recorded = (await sidecar.Body.transformToString()).split(/\s+/)[0];
  return /^[0-9a-f]{64}$/.test(recorded) ? { sha256: recorded, bytes } : undefined;
}

/** Aborts the multipart uploads of exactly this key (a killed attempt's): none is left to look half-done. */
export async function abortLeftovers(target: ObjectStoreTarget, key: string): Promise<number> {
  const listed = await inStore(
    target.client.send(new ListMultipartUploadsCommand({ Bucket: target.bucket, Prefix: key })),
  );
  const mine = (listed.Uploads ?? []).filter((u) => u.Key === key && u.UploadId);
  for (const u of mine) {
    await inStore(
      target.client.send(new AbortMultipartUploadCommand({ Bucket: target.bucket, Key: key, UploadId: u.UploadId })),
    );
  }
  return mine.length;
}

/** Errors of the vendor's side of an upload (its body, its size): not the store's. */
const vendorSide = new WeakSet<object>();

/**
 * The body, counted, hashed and limited on its way to the store; the total is checked
 * against what was declared at the end. `state.hex` is set once the body is complete.
 */
function hashed(u: StoreUpload) {
  const ctx = Context.current();
  const state = { bytes: 0, hex: '' };
  const total = u.expectedBytes ?? u.declared;
  async function* chunks(): AsyncGenerator<Buffer> {
    const hash = createHash('sha256');
    let lastBeat = 0;
    try {
      for await (const chunk of u.body) {
        state.bytes += chunk.length;
        if (state.bytes > u.maxBytes) throw tooLarge(u.name, state.bytes, u.maxBytes, 'the download reached');
        hash.update(chunk);
        if (Date.now() - lastBeat >= u.heartbeatEvery) {
          lastBeat = Date.now();
          ctx.heartbeat({ phase: 'upload', bytes: state.bytes, total });
        }
        yield chunk;
      }
      for (const [what, want] of [
        ['Content-Length', u.declared],
        ['expectedBytes', u.expectedBytes],
      ] as const) {
        if (want !== undefined && want !== state.bytes) throw sizeMismatch(u.name, state.bytes, what, want);
      }
    } catch (err) {
      if (typeof err === 'object' && err !== null) vendorSide.add(err);
      throw err;
    }
    state.hex = hash.digest('hex');
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), state };
}

/** Streams the body into `key` (multipart, aborted on failure), then writes the sidecar. */
export async function uploadObject(
  target: ObjectStoreTarget,
  key: string,
  u: StoreUpload,
  signal: AbortSignal,
): Promise<{ sha256: string; bytes: number }> {
  const { stream, state } = hashed(u);
  const sse = target.sse ? { ServerSideEncryption: target.sse } : {};
  const kms = target.sseKmsKeyId ? { SSEKMSKeyId: target.sseKmsKeyId } : {};
  const upload = new Upload({
    client: target.client,
    params: {
      Bucket: target.bucket,
      Key: key,
      Body: stream,
      ChecksumAlgorithm: 'CRC32',
      Metadata: { 'source-url': redactUrl(u.url), 'task-id': encodeURIComponent(u.taskId ?? '') },
      ...sse,
      ...kms,
    },
    partSize: PART_SIZE,
    queueSize: QUEUE_SIZE,
    leavePartsOnError: false,
  });
  const onAbort = () => void upload.abort().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const done = await upload.done().catch((err: unknown) => {
      throw err instanceof Error && vendorSide.has(err) ? err : asStoreError(err);
    });
    await inStore(
      target.client.send(
        new PutObjectCommand({
          Bucket: target.bucket,
          Key: `${key}.sha256`,
          Body: `${state.hex}  ${key.split('/').at(-1)}\n`,
          ContentType: 'text/plain; charset=utf-8',
          Metadata: { etag: etagOf(done.ETag) },
          ...sse,
          ...kms,
        }),
      ),
    );
    return { sha256: state.hex, bytes: state.bytes };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export function storeResultOf(
  input: { name: string; url: string; taskId?: string },
  target: ObjectStoreTarget,
  key: string,
  sha256: string,
  bytes: number,
): ArchivedFile {
  const out: ArchivedFile = {
    name: input.name,
    path: `s3://${target.bucket}/${key}`,
    sha256,
    bytes,
    sourceUrl: redactUrl(input.url),
    bucket: target.bucket,
    key,
  };
  if (input.taskId !== undefined) out.taskId = input.taskId;
  return out;
}
