/**
 * archiveOutput: download a vendor output before its URL expires (DESIGN §6), with a
 * sha256 checksum, into `${archiveRoot}/${pipelineId}/${name}` plus `${name}.sha256`
 * (sha256sum format).
 *
 * - Streams with undici to `${name}.part`, hashing as it goes; fsync, then rename: the
 *   final name only ever holds a complete file.
 * - Heartbeats progress; the activity's cancellation signal aborts the HTTP request
 *   (the workflow must set a heartbeatTimeout for cancellation to reach it).
 * - Idempotent: when the final file and its .sha256 exist and agree, returns them
 *   without a request.
 * - 403/404/410 → non-retryable "URL expired or gone"; 5xx, 408, 429 and network
 *   failures → retryable. Messages name the file and status; a URL is shown without
 *   its query string (a signed URL's query is a credential).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Agent, interceptors, request, type Dispatcher } from 'undici';
import type { ArchivedFile } from '../workflows/messages';

export interface ArchiveInput {
  pipelineId: string;
  /** File name inside the pipeline's folder, e.g. "generation.mp4"; sanitized. */
  name: string;
  url: string;
  /** When known: a file of another size is not accepted (retryable failure). */
  expectedBytes?: number;
}

export interface ArchiveActivitiesOptions {
  archiveRoot: string;
  /** undici dispatcher; default: an Agent that follows up to 5 redirects. */
  dispatcher?: Dispatcher;
  /** Time to response headers and between body chunks. Default 60 s each. */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Minimum interval between progress heartbeats. Default 1 s. */
  heartbeatIntervalMs?: number;
}

/** Failure types this activity throws (ApplicationFailure.type). */
export const ARCHIVE_FAILURES = {
  /** 403/404/410: the signed URL expired or the object is gone. Non-retryable. */
  gone: 'ArchiveUrlGone',
  /** Any other non-2xx. Retryable for 5xx, 408, 429; not for other 4xx. */
  http: 'ArchiveHttpError',
  /** Connection, reset, timeout while downloading. Retryable. */
  network: 'ArchiveNetworkError',
  /** Downloaded size differs from expectedBytes or Content-Length. Retryable. */
  size: 'ArchiveSizeMismatch',
  /** Bad input (empty name, non-http URL). Non-retryable. */
  input: 'ArchiveInvalidInput',
  /** Local filesystem failure (disk full, permissions). Retryable. */
  write: 'ArchiveWriteError',
} as const;

const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/;

/**
 * A single safe path segment: kept as is when already safe, otherwise unsafe characters
 * become `_` and a short hash of the original is appended, so two different names never
 * share a file (e.g. "a/b" and "a_b"). Never empty, never "." or "..", never hidden.
 */
export function safeSegment(raw: string): string {
  if (SAFE_SEGMENT.test(raw) && !raw.includes('..')) return raw;
  const hash = createHash('sha256').update(raw, 'utf8').digest('hex').slice(0, 8);
  const cleaned = raw
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  return cleaned ? `${cleaned}-${hash}` : `file-${hash}`;
}

/** A URL for messages and results: scheme, host and path only (no credentials, no query). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '<unparseable URL>';
  }
}

function scrub(message: string, url: string): string {
  let out = message.split(url).join(redactUrl(url));
  try {
    const { search } = new URL(url);
    if (search.length > 1) out = out.split(search.slice(1)).join('…');
  } catch {
    // nothing more to remove
  }
  return out;
}

function sha256Line(hex: string, fileName: string): string {
  return `${hex}  ${fileName}\n`;
}

async function sha256OfFile(file: string, signal: AbortSignal): Promise<{ hex: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file, { signal }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { hex: hash.digest('hex'), bytes };
}

function statusFailure(name: string, url: string, status: number): ApplicationFailure {
  const where = `archive "${name}": HTTP ${status} from ${redactUrl(url)}`;
  if (status === 403 || status === 404 || status === 410) {
    return ApplicationFailure.create({
      type: ARCHIVE_FAILURES.gone,
      message: `${where}: URL expired or gone`,
      nonRetryable: true,
      details: [{ name, status }],
    });
  }
  const retryable = status >= 500 || status === 408 || status === 429;
  return ApplicationFailure.create({
    type: ARCHIVE_FAILURES.http,
    message: where,
    nonRetryable: !retryable,
    details: [{ name, status }],
  });
}

function isFsError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string' && 'path' in err;
}

function toFailure(err: unknown, name: string, url: string, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? err; // cancellation: let the SDK report it as such
  if (err instanceof ApplicationFailure) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  const detail = scrub(`${e.message}${typeof code === 'string' ? ` (${code})` : ''}`, url);
  if (isFsError(e)) {
    return ApplicationFailure.create({
      type: ARCHIVE_FAILURES.write,
      message: `archive "${name}": writing the file failed: ${detail}`,
      details: [{ name, code }],
    });
  }
  return ApplicationFailure.create({
    type: ARCHIVE_FAILURES.network,
    message: `archive "${name}": download from ${redactUrl(url)} failed: ${detail}`,
    details: [{ name, code }],
  });
}

export function createArchiveActivities(opts: ArchiveActivitiesOptions) {
  const root = path.resolve(opts.archiveRoot);
  const headersTimeout = opts.headersTimeoutMs ?? 60_000;
  const bodyTimeout = opts.bodyTimeoutMs ?? 60_000;
  const heartbeatEvery = opts.heartbeatIntervalMs ?? 1_000;
  let ownDispatcher: Dispatcher | undefined;
  const dispatcher = (): Dispatcher =>
    opts.dispatcher ?? (ownDispatcher ??= new Agent().compose(interceptors.redirect({ maxRedirections: 5 })));

  function paths(input: ArchiveInput) {
    const dir = path.join(root, safeSegment(input.pipelineId));
    const fileName = safeSegment(input.name);
    const final = path.join(dir, fileName);
    // Belt and braces: whatever the sanitizer does, nothing is written outside the root.
    if (path.dirname(path.dirname(final)) !== root) throw new Error('archive path escapes the archive root');
    return { dir, fileName, final, part: `${final}.part`, sum: `${final}.sha256` };
  }

  /** The archived file when it is complete and matches its .sha256 (and size, if given). */
  async function existing(
    input: ArchiveInput,
    p: ReturnType<typeof paths>,
    signal: AbortSignal,
  ): Promise<ArchivedFile | undefined> {
    let recorded: string;
    try {
      const [line] = (await readFile(p.sum, 'utf8')).split('\n');
      recorded = (line ?? '').split(/\s+/)[0] ?? '';
      const st = await stat(p.final);
      if (!st.isFile()) return undefined;
      if (input.expectedBytes !== undefined && st.size !== input.expectedBytes) return undefined;
    } catch {
      return undefined;
    }
    if (!/^[0-9a-f]{64}$/.test(recorded)) return undefined;
    Context.current().heartbeat({ phase: 'verify-existing' });
    const { hex, bytes } = await sha256OfFile(p.final, signal);
    if (hex !== recorded) return undefined;
    return { name: input.name, path: p.final, sha256: hex, bytes, sourceUrl: redactUrl(input.url) };
  }

  async function download(input: ArchiveInput, p: ReturnType<typeof paths>, signal: AbortSignal) {
    const ctx = Context.current();
    const res = await request(input.url, { method: 'GET', signal, dispatcher: dispatcher(), headersTimeout, bodyTimeout });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump().catch(() => undefined);
      throw statusFailure(input.name, input.url, res.statusCode);
    }
    const lengthHeader = res.headers['content-length'];
    const declared = typeof lengthHeader === 'string' && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
    const total = input.expectedBytes ?? declared;
    const hash = createHash('sha256');
    let bytes = 0;
    let lastBeat = 0;
    const fh = await open(p.part, 'w');
    try {
      ctx.heartbeat({ phase: 'download', bytes, total });
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        hash.update(chunk);
        bytes += chunk.length;
        await fh.write(chunk);
        const now = Date.now();
        if (now - lastBeat >= heartbeatEvery) {
          lastBeat = now;
          ctx.heartbeat({ phase: 'download', bytes, total });
        }
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    for (const [what, want] of [
      ['Content-Length', declared],
      ['expectedBytes', input.expectedBytes],
    ] as const) {
      if (want !== undefined && want !== bytes) {
        throw ApplicationFailure.create({
          type: ARCHIVE_FAILURES.size,
          message: `archive "${input.name}": got ${bytes} bytes, ${what} says ${want}`,
          details: [{ name: input.name, bytes, [what]: want }],
        });
      }
    }
    return { hex: hash.digest('hex'), bytes };
  }

  async function syncDir(dir: string): Promise<void> {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } catch {
      // Some filesystems refuse fsync on a directory; the rename is still atomic.
    } finally {
      await d.close();
    }
  }

  return {
    /** Download `url` into the archive with a sha256 checksum; see the module comment. */
    async archiveOutput(input: ArchiveInput): Promise<ArchivedFile> {
      const { cancellationSignal: signal } = Context.current();
      for (const field of ['pipelineId', 'name', 'url'] as const) {
        if (typeof input?.[field] !== 'string' || input[field].trim() === '') {
          throw ApplicationFailure.create({
            type: ARCHIVE_FAILURES.input,
            message: `archive: ${field} must be a non-empty string`,
            nonRetryable: true,
          });
        }
      }
      if (!/^https?:\/\//i.test(input.url)) {
        throw ApplicationFailure.create({
          type: ARCHIVE_FAILURES.input,
          message: `archive "${input.name}": url must be http(s), got ${redactUrl(input.url)}`,
          nonRetryable: true,
        });
      }
      const p = paths(input);
      try {
        await mkdir(p.dir, { recursive: true });
        const found = await existing(input, p, signal);
        if (found) return found;
        const { hex, bytes } = await download(input, p, signal);
        await rename(p.part, p.final);
        const sumTmp = `${p.sum}.part`;
        await writeFile(sumTmp, sha256Line(hex, p.fileName), { flush: true });
        await rename(sumTmp, p.sum);
        await syncDir(p.dir);
        return { name: input.name, path: p.final, sha256: hex, bytes, sourceUrl: redactUrl(input.url) };
      } catch (err) {
        await rm(p.part, { force: true }).catch(() => undefined);
        throw toFailure(err, input.name, input.url, signal);
      }
    },
  };
}
