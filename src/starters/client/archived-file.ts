/**
 * An archived file, fetched from where it was archived (docs/library.md "Archived files"),
 * checked against `bytes` and `sha256` of the pipeline's result, and only then put at `out`
 * (an atomic rename: `out` never holds a partial or wrong file).
 *
 * - In an object store (`bucket` and `key` set, REELFLOW_ARCHIVE_STORE): a GET presigned
 *   here with the caller's own S3 credentials (a read-only key is enough), valid a few
 *   minutes; no worker needs to be running (./archived-object.ts).
 * - On a worker's disk: that worker serves it over HTTP to holders of REELFLOW_ARCHIVE_TOKEN
 *   (src/workers/archive-server.ts).
 *
 * Why HTTP and not Temporal: a video is far above a payload's size limit (2 MB by default)
 * and would stay in the history; the file lives on one worker's disk, which only that
 * worker (or a volume it shares) can read.
 */
import { createHash, randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import path, { posix } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Client } from '@temporalio/client';
import { request } from 'undici';
import { archiveBaseUrl, archiveHttpPath, archiveSegmentsOf } from '../../contract/archive-path';
import type { ArchivedFile, PipelineResult } from '../../contract/messages';
import { ArchiveFetchError } from './archive-fetch-error';
import { getPresigned, presignedGet } from './archived-object';
import { pipelineResult } from './pipeline-client';

const basename = (key: string) => posix.basename(key);

export interface FetchArchivedFileOptions {
  /**
   * Which archived file (`generated.mp4`, `erased.mp4`, …). Default: the last one archived,
   * which is the erased video when the pipeline erased, else the generated one.
   */
  name?: string;
  /** The worker's archive server, e.g. http://worker:8090 (REELFLOW_ARCHIVE_URL). Files on a worker's disk only. */
  archiveUrl?: string;
  /** The worker's REELFLOW_ARCHIVE_TOKEN. Sent as a bearer token, never in a message. Files on a worker's disk only. */
  token?: string;
  /**
   * The S3 client that presigns downloads of files in an object store, or a function that
   * makes it when first needed. Default: one built from the AWS variables of this process
   * (src/config/object-store.ts).
   */
  s3?: S3Client | (() => S3Client);
  /** How long a presigned download stays valid, in seconds. Default 300. */
  presignSeconds?: number;
  /** Where to write the file; an existing folder gets the file under its archived name. */
  out: string;
  signal?: AbortSignal;
  /** Time to the response headers, and between body chunks. Default 60 s each. */
  timeoutMs?: number;
}

export interface FetchedArchivedFile {
  /** The archived name, e.g. "erased.mp4". */
  name: string;
  /** Where it was written (absolute). */
  path: string;
  bytes: number;
  sha256: string;
}

export { ArchiveFetchError, type ArchiveFetchReason } from './archive-fetch-error';

/** The archived file `name` names, or the last one archived; throws ArchiveFetchError. */
export function pickArchivedFile(result: PipelineResult, name?: string): ArchivedFile {
  const files = result.archived ?? [];
  const id = result.pipelineId;
  if (files.length === 0) {
    throw new ArchiveFetchError(`pipeline ${id} archived no file (options.archive was off)`, 'none-archived');
  }
  if (name === undefined) return files[files.length - 1];
  const found = files.find((f) => f.name === name);
  if (found) return found;
  const names = files.map((f) => f.name).join(', ');
  throw new ArchiveFetchError(`pipeline ${id} archived no file "${name}" (it archived: ${names})`, 'unknown-name');
}

function checkOut(opts: Pick<FetchArchivedFileOptions, 'out'>): void {
  if (typeof opts.out !== 'string' || opts.out === '') {
    throw new ArchiveFetchError('out must be a file or folder path', 'config', 'out');
  }
}

/** The archive server's base URL, checked with the token (files on a worker's disk). */
function checkServerOptions(opts: Pick<FetchArchivedFileOptions, 'archiveUrl' | 'token'>): string {
  const base = typeof opts.archiveUrl === 'string' ? archiveBaseUrl(opts.archiveUrl) : undefined;
  if (!base) {
    throw new ArchiveFetchError(
      'archiveUrl must be an http(s) URL without credentials, query or fragment',
      'config',
      'archiveUrl',
    );
  }
  // A header cannot carry control characters; the value itself is never shown.
  if (typeof opts.token !== 'string' || opts.token === '' || /[\u0000-\u001f\u007f]/.test(opts.token)) {
    throw new ArchiveFetchError('token must be a non-empty string without control characters', 'config', 'token');
  }
  return base;
}

/** `out` itself, or `out/<name>` when `out` is an existing folder. */
async function targetOf(out: string, fileName: string): Promise<string> {
  const resolved = path.resolve(out);
  const st = await stat(resolved).catch(() => undefined);
  return st?.isDirectory() ? path.join(resolved, fileName) : resolved;
}

function storeStatusError(what: string, object: string, status: number): ArchiveFetchError {
  if (status === 403) {
    return new ArchiveFetchError(
      `${what}: the object store refused the presigned GET of ${object} (403): this process's AWS credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) must be able to read it (s3:GetObject)`,
      'unauthorized',
    );
  }
  if (status === 404) {
    return new ArchiveFetchError(
      `${what}: ${object} is not in the store (404): removed since, or another endpoint (AWS_ENDPOINT_URL_S3)`,
      'not-found',
    );
  }
  return new ArchiveFetchError(`${what}: the object store answered HTTP ${status} for ${object}`, 'http');
}

function statusError(what: string, url: string, status: number): ArchiveFetchError {
  if (url.startsWith('s3://')) return storeStatusError(what, url, status);
  if (status === 401) {
    return new ArchiveFetchError(
      `${what}: ${url} refused the token (401): it must be the worker's REELFLOW_ARCHIVE_TOKEN`,
      'unauthorized',
    );
  }
  if (status === 404) {
    return new ArchiveFetchError(
      `${what}: ${url} has no such file (404): it was archived on another worker's disk, or removed since`,
      'not-found',
    );
  }
  return new ArchiveFetchError(`${what}: ${url} answered HTTP ${status}`, 'http');
}

/** Streams the response into `part`, hashing as it goes; returns the bytes and sha256 it wrote. */
async function writePart(body: AsyncIterable<Buffer>, part: string): Promise<{ bytes: number; sha256: string }> {
  const fh = await open(part, 'wx', 0o644).catch((err: NodeJS.ErrnoException) => {
    const folder = path.dirname(part);
    throw new ArchiveFetchError(`out: cannot write in ${folder} (${err.code ?? err.message})`, 'config', 'out');
  });
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of body) {
      hash.update(chunk);
      bytes += chunk.length;
      await fh.write(chunk);
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
  return { bytes, sha256: hash.digest('hex') };
}

type DownloadOptions = Omit<FetchArchivedFileOptions, 'name'> & { workflowId?: string };

/** Where one archived file is fetched from: URL, headers, and what the messages call it. */
interface Source {
  url: string;
  /** Shown in messages: never a presigned URL's query (a credential). */
  shown: string;
  headers: Record<string, string>;
  /** Names the server in "cannot reach" messages. */
  server: string;
  /** A presigned object-store URL (fetched by ./archived-object.ts getPresigned). */
  presigned: boolean;
  fileName: string;
}

async function sourceOf(file: ArchivedFile, opts: DownloadOptions, what: string): Promise<Source> {
  if (file.bucket !== undefined && file.key !== undefined) {
    const s3 = typeof opts.s3 === 'function' ? opts.s3() : opts.s3;
    const url = await presignedGet(file.bucket, file.key, s3, opts.presignSeconds);
    const shown = `s3://${file.bucket}/${file.key}`;
    const server = `the object store (${new URL(url).host})`;
    return { url, shown, headers: {}, server, fileName: basename(file.key), presigned: true };
  }
  const base = checkServerOptions(opts);
  const segments = archiveSegmentsOf(file);
  if (!segments) throw new ArchiveFetchError(`${what}: its path is not one the archive writes`, 'not-found');
  const url = `${base}${archiveHttpPath(segments)}`;
  const headers = { authorization: `Bearer ${opts.token}` };
  return { url, shown: url, headers, server: `the archive server at ${base}`, fileName: segments[2], presigned: false };
}

/** The answer to the source's GET: status, body, and a way to drop the body unread. */
async function openSource(source: Source, timeout: number, signal: AbortSignal | undefined) {
  if (source.presigned) {
    const res = await getPresigned(source.url, timeout, signal);
    return { statusCode: res.statusCode ?? 0, body: res as AsyncIterable<Buffer>, discard: () => void res.resume() };
  }
  const res = await request(source.url, {
    method: 'GET',
    headers: source.headers,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    ...(signal ? { signal } : {}),
  });
  const discard = () => void res.body.dump().catch(() => undefined);
  return { statusCode: res.statusCode, body: res.body as AsyncIterable<Buffer>, discard };
}

/**
 * Downloads one archived file (an entry of `result.archived`) from its object store or its
 * worker's archive server to `out`, verified against its `bytes` and `sha256`. On any
 * failure the partial file is removed.
 */
export async function downloadArchivedFile(file: ArchivedFile, opts: DownloadOptions): Promise<FetchedArchivedFile> {
  checkOut(opts);
  const what = `archived file "${file.name}"${opts.workflowId ? ` of ${opts.workflowId}` : ''}`;
  const source = await sourceOf(file, opts, what);
  const target = await targetOf(opts.out, source.fileName);
  const part = `${target}.${randomBytes(6).toString('hex')}.part`;
  const timeout = opts.timeoutMs ?? 60_000;
  try {
    const res = await openSource(source, timeout, opts.signal).catch((err: unknown) => {
      const cause = err instanceof Error ? err.message : String(err);
      throw new ArchiveFetchError(`${what}: cannot reach ${source.server} (${cause})`, 'unreachable');
    });
    if (res.statusCode !== 200) {
      res.discard();
      throw statusError(what, source.shown, res.statusCode);
    }
    const got = await writePart(res.body, part);
    if (got.bytes !== file.bytes || got.sha256 !== file.sha256) {
      throw new ArchiveFetchError(
        `${what}: the download does not match the pipeline's result (got ${got.bytes} bytes, sha256 ${got.sha256}; expected ${file.bytes} bytes, sha256 ${file.sha256}); nothing written to ${target}`,
        'mismatch',
      );
    }
    await rename(part, target);
    return { name: file.name, path: target, ...got };
  } finally {
    await rm(part, { force: true }).catch(() => undefined);
  }
}

/**
 * Fetches an archived file of a completed pipeline through the worker that archived it
 * (see the module comment). Waits for the pipeline to end, as pipelineResult does; rejects
 * with PipelineFailedError when it did not complete, ArchiveFetchError otherwise.
 */
export async function fetchArchivedFile(
  client: Client,
  workflowId: string,
  opts: FetchArchivedFileOptions,
): Promise<FetchedArchivedFile> {
  checkOut(opts);
  const file = pickArchivedFile(await pipelineResult(client, workflowId), opts.name);
  return downloadArchivedFile(file, { ...opts, workflowId });
}
