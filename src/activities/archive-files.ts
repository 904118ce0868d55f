/**
 * The archive's file-system side: injective folder and file names, folders that are real
 * directories under the root (never a symlink out of it), and opens that never follow a
 * symlink at the last component either.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Opens a file (the archive's only way to open one; tests inject a full disk here). */
export type OpenFile = (file: string, flags: number, mode?: number) => Promise<FileHandle>;

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0; // absent on Windows

const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_SEGMENT = 120;

/**
 * One path segment per id, injective: two different ids never share a segment.
 *
 * - A "plain" id (letters, digits, `.`, `_`, `-`; starts with a letter or digit; no `..`;
 *   at most 120 characters) is kept as is. It contains no `~`.
 * - Any other id becomes `~` + its UTF-8 bytes with everything but letters, digits, `_`
 *   and `-` written `~XX` (hex). Reversible, so injective; and it starts with `~`, so it
 *   never equals a plain id ("x/y" → "~x~2Fy", never "x_y-…").
 * - When that is longer than 120 characters: `~` + the escaped start + `~~` + the id's full
 *   sha256. An escaped body never holds `~~` (each `~` is followed by two hex digits), so
 *   these never equal an escaped form; two of them differ unless sha256 collides.
 *
 * Never empty, never `.` or `..`, never hidden.
 */
export function safeSegment(raw: string): string {
  if (raw.length <= MAX_SEGMENT && PLAIN.test(raw) && !raw.includes('..')) return raw;
  const tokens = [...Buffer.from(raw, 'utf8')].map((b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9_-]/.test(c) ? c : `~${b.toString(16).toUpperCase().padStart(2, '0')}`;
  });
  const escaped = `~${tokens.join('')}`;
  if (escaped.length <= MAX_SEGMENT) return escaped;
  const hash = createHash('sha256').update(raw, 'utf8').digest('hex');
  let head = '~';
  for (const t of tokens) {
    if (head.length + t.length > MAX_SEGMENT - 2 - hash.length) break;
    head += t;
  }
  return `${head}~~${hash}`;
}

export class UnsafePathError extends Error {
  override readonly name = 'UnsafePathError';
  constructor(
    readonly folder: string,
    what: string,
  ) {
    super(`${folder} ${what}: the archive never writes through a symlink or outside its root`);
  }
}

/**
 * Creates `root/segments…` one level at a time; each level must be a real directory (a
 * pre-planted symlink or file is refused, not followed), and the result's real path must
 * be the root's real path plus the segments.
 */
export async function ensureFolder(root: string, segments: readonly string[]): Promise<string> {
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  let dir = root;
  for (const segment of segments) {
    dir = path.join(dir, segment);
    await mkdir(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    const st = await lstat(dir);
    if (st.isSymbolicLink()) throw new UnsafePathError(dir, 'is a symlink');
    if (!st.isDirectory()) throw new UnsafePathError(dir, 'is not a directory');
  }
  const real = await realpath(dir);
  if (real !== path.join(realRoot, ...segments)) throw new UnsafePathError(dir, `resolves to ${real}`);
  return dir;
}

/** A new file at `file`: whatever was there (file or symlink) is removed, never followed. */
export async function createExclusive(openFile: OpenFile, file: string): Promise<FileHandle> {
  await rm(file, { force: true });
  return openFile(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
}

/** Writes a small file completely (flushed), replacing `file` without following symlinks. */
export async function writeSmallFile(openFile: OpenFile, file: string, text: string): Promise<void> {
  const fh = await createExclusive(openFile, file);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Opens a regular file for reading; undefined when missing, a symlink or not a file. */
export async function openRegular(file: string): Promise<FileHandle | undefined> {
  const fh = await open(file, O_RDONLY | O_NOFOLLOW).catch(() => undefined);
  if (fh && !(await fh.stat()).isFile()) {
    await fh.close();
    return undefined;
  }
  return fh;
}

/** A small regular file's text; undefined when missing, a symlink or not a file. */
export async function readRegular(file: string): Promise<string | undefined> {
  const fh = await openRegular(file);
  if (!fh) return undefined;
  try {
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
}

/** fsync of a directory, so a rename in it survives a crash; some filesystems refuse it. */
export async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, O_RDONLY);
  try {
    await d.sync();
  } catch {
    // the rename is still atomic
  } finally {
    await d.close();
  }
}
