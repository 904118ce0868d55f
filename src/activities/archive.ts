/**
 * archiveOutput: download a vendor output before its URL expires (docs/architecture.md
 * "Outputs", docs/security.md "Archive downloads"), with a sha256 checksum, into
 * `${archiveRoot}/${pipelineId}/${taskId}/${name}` plus `${name}.sha256` (sha256sum format)
 * and `${name}.source.json` (what was downloaded).
 *
 * - Keyed by what was downloaded: the vendor task id has its own folder, so a pipeline
 *   id reused by a new run never meets the old run's file. Every id becomes one path
 *   segment by an injective encoding (./archive-files.ts).
 * - Idempotent: a stored file is returned without a request only when its recorded source
 *   (task id and URL without query) matches and its sha256 verifies.
 * - Streams with undici to `${name}.part`, hashing as it goes; fsync, then rename: the
 *   final name only ever holds a complete file. Folders must be real directories under
 *   the root and files are opened without following symlinks.
 * - Connects only to public addresses, redirects included, unless the worker opts in
 *   (./public-address.ts); refuses downloads over `maxBytes`.
 * - Heartbeats progress; the activity's cancellation signal aborts the HTTP request
 *   (the workflow must set a heartbeatTimeout for cancellation to reach it).
 * - Failures: ./archive-failures.ts.
 */
import { createHash } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import type { LookupFunction } from 'node:net';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { request } from 'undici';
import type { ArchivedFile } from '../contract/messages';
import { countArchivedBytes, countArchiveFailure, observeArchiveDuration } from '../metrics/activity';
import {
  invalidInput,
  onDisk,
  redactUrl,
  sizeMismatch,
  statusFailure,
  toFailure,
  tooLarge,
  type FailureContext,
} from './archive-failures';
import {
  createExclusive,
  ensureFolder,
  openRegular,
  readRegular,
  safeSegment,
  syncDir,
  writeSmallFile,
  type OpenFile,
} from './archive-files';
import {
  abortLeftovers,
  existingObject,
  objectKeyOf,
  storeResultOf,
  tenantSegment,
  uploadObject,
  type ObjectStoreTarget,
} from './archive-store';
import { createAddressGuard, type PrivateAllowance } from './public-address';

export { DISK_FULL_ATTEMPTS, redactUrl } from './archive-failures';
export { safeSegment } from './archive-files';

export interface ArchiveInput {
  pipelineId: string;
  /**
   * The vendor task whose output this is (generation or erase task id): its folder.
   * Absent only in activities scheduled before this field existed; their folder is keyed
   * by the URL (`_url-<sha256>`, a name no encoded id can have).
   */
  taskId?: string;
  /** File name inside the task's folder, e.g. "generated.mp4"; encoded as one segment. */
  name: string;
  url: string;
  /** When known: a file of another size is not accepted (retryable failure). */
  expectedBytes?: number;
}

/** 2 GiB: far above a generated clip, far below a disk. */
export const DEFAULT_ARCHIVE_MAX_BYTES = 2 ** 31;

export interface ArchiveActivitiesOptions {
  archiveRoot: string;
  /** REELFLOW_ARCHIVE_STORE: archive to this object store instead of `archiveRoot` (./archive-store.ts). */
  store?: ObjectStoreTarget;
  /**
   * Non-public addresses (loopback, private, link-local) the download may reach: `true`
   * any (local testing: the emulator serves media on 127.0.0.1), a list of addresses or
   * CIDR subnets only those. Default none.
   */
  allowPrivate?: PrivateAllowance;
  /** Largest file accepted, in bytes. Default DEFAULT_ARCHIVE_MAX_BYTES. */
  maxBytes?: number;
  /** Time to response headers and between body chunks. Default 60 s each. */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Minimum interval between progress heartbeats. Default 1 s. */
  heartbeatIntervalMs?: number;
  /** DNS seam for tests; default node:dns lookup. */
  lookup?: LookupFunction;
  /** File-system seam for tests (e.g. a full disk); default fs/promises open. */
  openFile?: OpenFile;
}

/** What `${name}.source.json` records. */
interface Source {
  taskId: string | null;
  url: string;
  sha256: string;
  bytes: number;
}

const SIDECAR = /\.(part|sha256|source\.json)$/;

function sha256Line(hex: string, fileName: string): string {
  return `${hex}  ${fileName}\n`;
}

function validate(input: ArchiveInput): void {
  for (const field of ['pipelineId', 'name', 'url'] as const) {
    if (typeof input?.[field] !== 'string' || input[field].trim() === '') {
      throw invalidInput(`${field} must be a non-empty string`);
    }
  }
  if (input.taskId !== undefined && (typeof input.taskId !== 'string' || input.taskId.trim() === '')) {
    throw invalidInput(`taskId must be a non-empty string when given`);
  }
  if (SIDECAR.test(safeSegment(input.name))) {
    throw invalidInput(`name "${input.name}" must not end in .part, .sha256 or .source.json (the archive's own files)`);
  }
  if (!/^https?:\/\//i.test(input.url) || !URL.canParse(input.url)) {
    throw invalidInput(`"${input.name}": url must be an http(s) URL, got ${redactUrl(input.url)}`);
  }
}

/** The options with their defaults: what every download of this worker shares. */
interface Archive {
  root: string;
  headersTimeout: number;
  bodyTimeout: number;
  heartbeatEvery: number;
  maxBytes: number;
  openFile: OpenFile;
  guard: ReturnType<typeof createAddressGuard>;
  store: ObjectStoreTarget | undefined;
}

function archiveOf(opts: ArchiveActivitiesOptions): Archive {
  return {
    root: path.resolve(opts.archiveRoot),
    headersTimeout: opts.headersTimeoutMs ?? 60_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 60_000,
    heartbeatEvery: opts.heartbeatIntervalMs ?? 1_000,
    maxBytes: opts.maxBytes ?? DEFAULT_ARCHIVE_MAX_BYTES,
    openFile: opts.openFile ?? open,
    store: opts.store,
    guard: createAddressGuard({
      ...(opts.allowPrivate !== undefined ? { allowPrivate: opts.allowPrivate } : {}),
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    }),
  };
}

/** Where one input's file and its sidecars go. */
interface Paths {
  /** The folders under the root: the pipeline's, then the task's. */
  segments: string[];
  dir: string;
  fileName: string;
  final: string;
  part: string;
  sum: string;
  source: string;
}

function pathsOf(root: string, input: ArchiveInput): Paths {
  const taskKey =
    input.taskId !== undefined
      ? safeSegment(input.taskId)
      : `_url-${createHash('sha256').update(redactUrl(input.url)).digest('hex')}`;
  const segments = [safeSegment(input.pipelineId), taskKey];
  const dir = path.join(root, ...segments);
  const fileName = safeSegment(input.name);
  const final = path.join(dir, fileName);
  return {
    segments,
    dir,
    fileName,
    final,
    part: `${final}.part`,
    sum: `${final}.sha256`,
    source: `${final}.source.json`,
  };
}

function resultOf(input: ArchiveInput, p: Paths, sha256: string, bytes: number): ArchivedFile {
  const out: ArchivedFile = { name: input.name, path: p.final, sha256, bytes, sourceUrl: redactUrl(input.url) };
  if (input.taskId !== undefined) out.taskId = input.taskId;
  return out;
}

/** The stored file when its recorded source is this one and its sha256 verifies. */
async function existing(input: ArchiveInput, p: Paths, signal: AbortSignal): Promise<ArchivedFile | undefined> {
  const [sumText, sourceText] = await Promise.all([readRegular(p.sum), readRegular(p.source)]);
  const recorded = sumText?.split(/\s+/)[0] ?? '';
  let source: Partial<Source> = {};
  try {
    source = JSON.parse(sourceText ?? '{}') as Partial<Source>;
  } catch {
    return undefined;
  }
  const sameSource = source.taskId === (input.taskId ?? null) && source.url === redactUrl(input.url);
  if (!/^[0-9a-f]{64}$/.test(recorded) || source.sha256 !== recorded || !sameSource) return undefined;
  const fh = await openRegular(p.final);
  if (!fh) return undefined;
  Context.current().heartbeat({ phase: 'verify-existing' });
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of fh.createReadStream({ signal }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  const hex = hash.digest('hex');
  if (hex !== recorded || bytes !== source.bytes) return undefined;
  if (input.expectedBytes !== undefined && bytes !== input.expectedBytes) return undefined;
  return resultOf(input, p, hex, bytes);
}

/** The GET, its status and declared length checked: the body to stream, and the length it declared. */
async function fetchOutput(archive: Archive, input: ArchiveInput, signal: AbortSignal) {
  const { headersTimeout, bodyTimeout, maxBytes } = archive;
  const res = await request(input.url, {
    method: 'GET',
    signal,
    dispatcher: archive.guard.dispatcher(),
    headersTimeout,
    bodyTimeout,
  });
  if (res.statusCode < 200 || res.statusCode >= 300) {
    await res.body.dump().catch(() => undefined);
    throw statusFailure(input.name, input.url, res.statusCode);
  }
  const lengthHeader = res.headers['content-length'];
  const declared = typeof lengthHeader === 'string' && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
  if (declared !== undefined && declared > maxBytes) {
    res.body.destroy();
    throw tooLarge(input.name, declared, maxBytes, 'Content-Length');
  }
  return { body: res.body as AsyncIterable<Buffer>, declared };
}

/** Streams the output to `${name}.part`, hashing and heartbeating as it goes; fsync before it returns. */
async function download(archive: Archive, input: ArchiveInput, p: Paths, signal: AbortSignal) {
  const ctx = Context.current();
  const { maxBytes, heartbeatEvery } = archive;
  const { body, declared } = await fetchOutput(archive, input, signal);
  const total = input.expectedBytes ?? declared;
  const hash = createHash('sha256');
  let bytes = 0;
  let lastBeat = 0;
  const fh = await onDisk(createExclusive(archive.openFile, p.part));
  try {
    ctx.heartbeat({ phase: 'download', bytes, total });
    for await (const chunk of body) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw tooLarge(input.name, bytes, maxBytes, 'the download reached');
      hash.update(chunk);
      await onDisk(fh.write(chunk));
      const now = Date.now();
      if (now - lastBeat >= heartbeatEvery) {
        lastBeat = now;
        ctx.heartbeat({ phase: 'download', bytes, total });
      }
    }
    await onDisk(fh.sync());
  } finally {
    await fh.close();
  }
  for (const [what, want] of [
    ['Content-Length', declared],
    ['expectedBytes', input.expectedBytes],
  ] as const) {
    if (want !== undefined && want !== bytes) throw sizeMismatch(input.name, bytes, what, want);
  }
  return { hex: hash.digest('hex'), bytes };
}

/** Publishes a verified download: the file first, then what it is; all renames are atomic. */
async function commit(openFile: OpenFile, input: ArchiveInput, p: Paths, hex: string, bytes: number): Promise<void> {
  await rename(p.part, p.final);
  const source: Source = { taskId: input.taskId ?? null, url: redactUrl(input.url), sha256: hex, bytes };
  for (const [file, text] of [
    [p.sum, sha256Line(hex, p.fileName)],
    [p.source, `${JSON.stringify(source)}\n`],
  ] as const) {
    await writeSmallFile(openFile, `${file}.part`, text);
    await rename(`${file}.part`, file);
  }
  await syncDir(p.dir);
}

/** The checks every backend makes before any request, once the input is valid: address, declared size. */
function precheck(archive: Archive, input: ArchiveInput, failure: FailureContext): void {
  const refusal = archive.guard.refusalOf(new URL(input.url).hostname);
  if (refusal) throw toFailure(refusal, failure);
  if (input.expectedBytes !== undefined && input.expectedBytes > archive.maxBytes) {
    throw tooLarge(input.name, input.expectedBytes, archive.maxBytes, 'expectedBytes');
  }
}

/** Download `url` into the local folder with a sha256 checksum; see the module comment. */
async function archiveToFolder(archive: Archive, input: ArchiveInput): Promise<ArchivedFile> {
  const { cancellationSignal: signal, info } = Context.current();
  validate(input);
  const p = pathsOf(archive.root, input);
  const failure = { name: input.name, url: input.url, dir: p.dir, attempt: info.attempt, signal };
  precheck(archive, input, failure);
  let folderIsSafe = false;
  try {
    await onDisk(ensureFolder(archive.root, p.segments));
    folderIsSafe = true;
    const found = await existing(input, p, signal).catch(() => undefined);
    if (found) return found;
    const { hex, bytes } = await download(archive, input, p, signal);
    await onDisk(commit(archive.openFile, input, p, hex, bytes));
    countArchivedBytes(bytes, 'local');
    return resultOf(input, p, hex, bytes);
  } catch (err) {
    if (folderIsSafe) {
      for (const part of [p.part, `${p.sum}.part`, `${p.source}.part`])
        await rm(part, { force: true }).catch(() => undefined);
    }
    throw toFailure(err, failure);
  }
}

/** Download `url` into the object store with a sha256 sidecar (./archive-store.ts). */
async function archiveToStore(archive: Archive, store: ObjectStoreTarget, input: ArchiveInput): Promise<ArchivedFile> {
  const { cancellationSignal: signal, info } = Context.current();
  validate(input);
  const p = pathsOf('/', input);
  const key = objectKeyOf(store, [tenantSegment(safeSegment), ...p.segments, p.fileName]);
  const where = `s3://${store.bucket}/${key}`;
  const failure = { name: input.name, url: input.url, dir: where, store: where, attempt: info.attempt, signal };
  precheck(archive, input, failure);
  try {
    const found = await existingObject(store, key, {
      url: input.url,
      taskId: input.taskId,
      expectedBytes: input.expectedBytes,
    });
    if (found) return storeResultOf(input, store, key, found.sha256, found.bytes);
    await abortLeftovers(store, key);
    const { body, declared } = await fetchOutput(archive, input, signal);
    const { sha256, bytes } = await uploadObject(
      store,
      key,
      {
        name: input.name,
        url: input.url,
        taskId: input.taskId,
        body,
        declared,
        expectedBytes: input.expectedBytes,
        maxBytes: archive.maxBytes,
        heartbeatEvery: archive.heartbeatEvery,
      },
      signal,
    );
    countArchivedBytes(bytes, 's3');
    return storeResultOf(input, store, key, sha256, bytes);
  } catch (err) {
    throw toFailure(err, failure);
  }
}

/** Times one archive and counts its failure, by backend. */
async function measured(backend: 'local' | 's3', run: () => Promise<ArchivedFile>): Promise<ArchivedFile> {
  const t0 = performance.now();
  try {
    const file = await run();
    observeArchiveDuration((performance.now() - t0) / 1000, backend);
    return file;
  } catch (err) {
    countArchiveFailure(backend, err);
    throw err;
  }
}

/** Download `url` into the archive with a sha256 checksum; see the module comment. */
function archiveOutput(archive: Archive, input: ArchiveInput): Promise<ArchivedFile> {
  const { store } = archive;
  return store
    ? measured('s3', () => archiveToStore(archive, store, input))
    : measured('local', () => archiveToFolder(archive, input));
}

export function createArchiveActivities(opts: ArchiveActivitiesOptions) {
  const archive = archiveOf(opts);
  return {
    /** Download `url` into the archive with a sha256 checksum; see the module comment. */
    archiveOutput: (input: ArchiveInput): Promise<ArchivedFile> => archiveOutput(archive, input),
  };
}
