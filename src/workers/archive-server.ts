/**
 * The archive over HTTP: the worker serves the files it archived (src/activities/archive.ts)
 * to whoever holds REELFLOW_ARCHIVE_TOKEN, so a backend fetches `result.archived[]` without
 * a shell on the worker's host (docs/library.md "Archived files", `reelflow archive get`).
 *
 *   GET|HEAD /archive/<pipeline>/<task>/<name>   the file, streamed with Content-Length;
 *          one `Range: bytes=…` answers 206 with that part (a large download resumes),
 *          416 when it lies past the end
 *     401  Authorization is not `Bearer <REELFLOW_ARCHIVE_TOKEN>` (checked before the path)
 *     400  not three archive segments (src/contract/archive-path.ts): `..`, `/` or `\`
 *          encoded, a hidden or empty name, a bad percent-encoding
 *     404  no such regular file under the root (a symlink, at any level, counts as none)
 *   GET|HEAD /archive   204 with the token: the token and the address are right (doctor)
 *   GET /healthz        200, no token
 *
 * Loopback by default (REELFLOW_ARCHIVE_HOST to expose it: docs/deploy.md "Running the
 * worker"), and at most MAX_CONNECTIONS open connections: a download holds one for minutes.
 *
 * A separate listener (REELFLOW_ARCHIVE_PORT), not the callback receiver's: the receiver
 * faces the vendor and may be public, while archived videos are for the team's own
 * network; and the receiver may run in another process (docs/deploy.md).
 *
 * Confinement: the three segments are checked before any file-system call, the folder's
 * real path must be the root's real path plus the two folder segments, and the file is
 * opened without following a symlink. Logs name the file served and each refusal's
 * reason; never the token, nor the Authorization header.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openRegular } from '../activities/archive-files';
import { ARCHIVE_DEPTH, ARCHIVE_HTTP_PREFIX, isArchiveSegment } from '../contract/archive-path';
import { localUrl, startHttpServer } from '../config/http-server';
import { printable } from '../contract/printable';
import type { LogLine } from '../telemetry/logger';

export interface ArchiveServerOptions {
  /** REELFLOW_ARCHIVE_DIR: the only folder served (three levels below it, nothing else). */
  root: string;
  /** REELFLOW_ARCHIVE_TOKEN (≥ 16 characters: src/workers/config.ts). */
  token: string;
  /** Default 127.0.0.1 (loopback). */
  host?: string;
  /** 0 = any free port. */
  port: number;
  /** Open connections at most; default MAX_CONNECTIONS. */
  maxConnections?: number;
  log?: LogLine;
}

export interface ArchiveServer {
  /** Where it listens, e.g. http://127.0.0.1:8090 (the base for REELFLOW_ARCHIVE_URL). */
  url: string;
  port: number;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.json': 'application/json',
  '.sha256': 'text/plain; charset=utf-8',
};

/** Constant-time comparison of digests, so neither the token's length nor its prefix leaks. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer +(.+)$/i.exec(header ?? '')?.[1];
  if (given === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(token));
}

function reply(res: http.ServerResponse, status: number, message?: string, extra: http.OutgoingHttpHeaders = {}) {
  if (res.headersSent) return;
  if (message === undefined) {
    res.writeHead(status, extra).end();
    return;
  }
  const body = JSON.stringify({ error: message });
  res
    .writeHead(status, { ...extra, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    .end(body);
}

/** The three decoded segments of `/archive/a/b/c`; a string: why not (400). */
function parseArchivePath(pathname: string): string[] | string {
  const raw = pathname.slice(ARCHIVE_HTTP_PREFIX.length + 1).split('/');
  if (raw.length !== ARCHIVE_DEPTH) return `the path must be ${ARCHIVE_HTTP_PREFIX}/<pipeline>/<task>/<name>`;
  const segments: string[] = [];
  for (const r of raw) {
    let s: string;
    try {
      s = decodeURIComponent(r);
    } catch {
      return 'bad percent-encoding';
    }
    if (!isArchiveSegment(s)) return `"${printable(s, 80)}" is not a file or folder the archive writes`;
    segments.push(s);
  }
  return segments;
}

/** The regular file at root/a/b/c, reached through real directories only; undefined: none. */
async function openArchived(root: string, segments: readonly string[]) {
  const folders = segments.slice(0, -1);
  const real = (p: string) => realpath(p).catch(() => undefined);
  const [realRoot, realDir] = await Promise.all([real(root), real(path.join(root, ...folders))]);
  if (realRoot === undefined || realDir !== path.join(realRoot, ...folders)) return undefined;
  return openRegular(path.join(realDir, segments[segments.length - 1]));
}

/** Downloads at once: each holds a connection (and a file handle) for as long as it streams. */
export const MAX_CONNECTIONS = 64;

/**
 * The one range of `bytes=a-b`, `bytes=a-` or `bytes=-n` within `size`; 'unsatisfiable'
 * past the end; undefined for no header or one this server does not take (several ranges,
 * another unit), which is answered with the whole file as HTTP allows.
 */
export function rangeOf(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return undefined; // invalid: ignored, the whole file
  return start < size ? { start, end } : 'unsatisfiable';
}

/** Streams the open file, or the part `Range` asks for; a client that goes away mid-download is logged, not an error. */
async function send(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  fh: FileHandle,
  name: string,
): Promise<string> {
  const { size } = await fh.stat();
  const headers: http.OutgoingHttpHeaders = {
    'content-type': CONTENT_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream',
    'content-disposition': `attachment; filename="${name}"`,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'accept-ranges': 'bytes',
  };
  const range = rangeOf(req.headers.range, size);
  if (range === 'unsatisfiable') {
    reply(res, 416, 'range not satisfiable', { 'content-range': `bytes */${size}` });
    return `nothing: the range is past ${size} bytes (416)`;
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  res.writeHead(range ? 206 : 200, { ...headers, 'content-length': end - start + 1 });
  if (req.method === 'HEAD' || size === 0) {
    res.end();
  } else {
    await pipeline(fh.createReadStream({ autoClose: false, start, end }), res);
  }
  const what = range ? `bytes ${start}-${end} of ${size}` : `${size} bytes`;
  return req.method === 'HEAD' ? `${what}, HEAD` : what;
}

/** The request handler, without the listener (tests drive it through a real server all the same). */
function archiveHandler(opts: Pick<ArchiveServerOptions, 'root' | 'token' | 'log'>) {
  if (!opts.token) throw new TypeError('archiveHandler: token must not be empty');
  const root = path.resolve(opts.root);
  const log: LogLine = opts.log ?? (() => undefined);
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    const head = req.method === 'HEAD';
    if (pathname === '/healthz' && (req.method === 'GET' || head)) return reply(res, 200);
    const inArchive = pathname === ARCHIVE_HTTP_PREFIX || pathname.startsWith(`${ARCHIVE_HTTP_PREFIX}/`);
    if (!inArchive) return reply(res, 404, 'not found');
    if (req.method !== 'GET' && !head) return reply(res, 405, 'method not allowed', { allow: 'GET, HEAD' });
    if (!bearerMatches(req.headers.authorization, opts.token)) {
      log('archive request refused: missing or wrong token (401)', 'warn');
      return reply(res, 401, 'unauthorized', { 'www-authenticate': 'Bearer' });
    }
    if (pathname === ARCHIVE_HTTP_PREFIX || pathname === `${ARCHIVE_HTTP_PREFIX}/`) return reply(res, 204);
    const segments = parseArchivePath(pathname);
    if (typeof segments === 'string') {
      log(`archive request refused (400): ${segments}`, 'warn');
      return reply(res, 400, segments);
    }
    const shown = segments.join('/');
    const fh = await openArchived(root, segments);
    if (!fh) {
      log(`archive: no file ${shown} (404)`);
      return reply(res, 404, 'no such archived file');
    }
    try {
      const what = await send(req, res, fh, segments[2]);
      log(`archive: served ${shown} (${what})`);
    } catch (err) {
      if (!res.destroyed && !req.destroyed) throw err;
      res.destroy();
      log(`archive: ${shown} not completed, the client went away`);
    } finally {
      await fh.close();
    }
  };
}

export async function startArchiveServer(opts: ArchiveServerOptions): Promise<ArchiveServer> {
  const log: LogLine = opts.log ?? (() => undefined);
  const handle = archiveHandler(opts);
  const host = opts.host ?? '127.0.0.1';
  const listener = await startHttpServer(
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        log(`archive server error: ${err instanceof Error ? err.name : 'error'}`, 'error');
        if (res.headersSent) res.destroy();
        else reply(res, 500, 'internal error');
      });
    },
    // Headers must come quickly; a large file may take long to stream, so no overall request
    // timeout. A download in flight gets a moment at close.
    {
      port: opts.port,
      host,
      timeouts: { headersMs: 10_000, requestMs: 0, keepAliveMs: 5_000 },
      maxConnections: opts.maxConnections ?? MAX_CONNECTIONS,
    },
  );
  return { url: localUrl(host, listener.port), port: listener.port, close: listener.close };
}
