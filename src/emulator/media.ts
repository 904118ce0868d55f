/**
 * The two sample videos (made by scripts/make-sample-media.sh, committed) and serving
 * them with Content-Length, HEAD and byte ranges, as a CDN would — players seek with
 * ranges. tsc does not copy .mp4 files, so the folder is looked up from both the
 * source layout (src/emulator) and the build layout (dist/emulator).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Reply } from './http';

export type MediaKind = 'generated' | 'erased';

export function findMediaDir(): string {
  const candidates = [process.env.EMULATOR_MEDIA_DIR, path.resolve(__dirname, 'media')].filter((p): p is string => !!p);
  const found = candidates.find((dir) => existsSync(path.join(dir, 'generated.mp4')));
  if (!found) throw new Error(`emulator media not found; looked in: ${candidates.join(', ')}`);
  return found;
}

export class MediaLibrary {
  private readonly files: Record<MediaKind, Buffer>;

  constructor(dir: string = findMediaDir()) {
    this.files = {
      generated: readFileSync(path.join(dir, 'generated.mp4')),
      erased: readFileSync(path.join(dir, 'erased.mp4')),
    };
  }

  /** The file as a reply: whole, or the one byte range asked for. */
  serve(kind: MediaKind, method: string, rangeHeader: string | undefined): Reply {
    const file = this.files[kind];
    const headers: Record<string, string> = {
      'content-type': 'video/mp4',
      'accept-ranges': 'bytes',
      'cache-control': 'private, max-age=60',
    };
    let status = 200;
    let body = file;
    if (rangeHeader) {
      const range = parseRange(rangeHeader, file.length);
      if (!range) {
        return {
          status: 416,
          headers: { ...headers, 'content-range': `bytes */${file.length}` },
          body: Buffer.alloc(0),
        };
      }
      status = 206;
      body = file.subarray(range.start, range.end + 1);
      headers['content-range'] = `bytes ${range.start}-${range.end}/${file.length}`;
    }
    headers['content-length'] = String(body.length);
    return { status, headers, body: method === 'HEAD' ? Buffer.alloc(0) : body };
  }
}

/** One range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; multi-range is not offered. */
function parseRange(header: string, size: number): { start: number; end: number } | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start <= end && start < size ? { start, end } : undefined;
}
