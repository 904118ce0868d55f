/**
 * The library's side of archived files (src/starters/client/archived-file.ts) against a
 * real archive server (src/workers/archive-server.ts) on a folder laid out as the archive
 * writes it: which file is picked, the checks of `bytes` and `sha256` (a mismatch leaves
 * nothing behind, not even the partial file), and each refusal as its own reason. The
 * whole path through a worker and the CLI: test/starters/archive-get.e2e.test.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ArchivedFile, PipelineResult } from '../../src/contract/messages';
import {
  ArchiveFetchError,
  downloadArchivedFile,
  pickArchivedFile,
  type ArchiveFetchReason,
} from '../../src/starters/client/archived-file';
import { startArchiveServer, type ArchiveServer } from '../../src/workers/archive-server';

const TOKEN = 'library-side-token-0123456789';
const BYTES = Buffer.from('frames '.repeat(5000));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let root: string;
let outDir: string;
let server: ArchiveServer;

function archived(name: string, content: Buffer, taskId = 'cgt-1'): ArchivedFile {
  const dir = path.join(root, 'pipe-1', taskId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), content);
  return {
    name,
    path: path.join('/srv/worker/archive', 'pipe-1', taskId, name),
    sha256: sha256(content),
    bytes: content.length,
    sourceUrl: 'https://media.example.com/x.mp4',
    taskId,
  };
}

async function reasonOf(p: Promise<unknown>): Promise<ArchiveFetchReason> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ArchiveFetchError)) throw new Error(`expected an ArchiveFetchError, got ${String(err)}`);
  expect(err.message).not.toContain(TOKEN);
  return err.reason;
}

beforeAll(async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'reelflow-archived-file-'));
  root = path.join(base, 'archive');
  outDir = path.join(base, 'out');
  mkdirSync(outDir);
  server = await startArchiveServer({ root, token: TOKEN, host: '127.0.0.1', port: 0 });
});
afterAll(() => server?.close());

test('the default is the last file archived (the erased video); --name picks another; errors list the names', () => {
  const files = [archived('generated.mp4', BYTES, 'cgt-1'), archived('erased.mp4', BYTES, 'erase-1')];
  const result = { pipelineId: 'pipe-1', archived: files } as PipelineResult;
  expect(pickArchivedFile(result).name).toBe('erased.mp4');
  expect(pickArchivedFile(result, 'generated.mp4').name).toBe('generated.mp4');
  expect(() => pickArchivedFile(result, 'final.mp4')).toThrow(
    'pipeline pipe-1 archived no file "final.mp4" (it archived: generated.mp4, erased.mp4)',
  );
  expect(() => pickArchivedFile({ ...result, archived: [] })).toThrow(/archived no file \(options.archive was off\)/);
});

test('a verified download lands at `out`, or in `out` under its archived name when it is a folder', async () => {
  const file = archived('generated.mp4', BYTES);
  const target = path.join(outDir, 'clip.mp4');
  const got = await downloadArchivedFile(file, { archiveUrl: `${server.url}/`, token: TOKEN, out: target });
  expect(got).toEqual({ name: 'generated.mp4', path: target, bytes: BYTES.length, sha256: sha256(BYTES) });
  expect(readFileSync(target).equals(BYTES)).toBe(true);

  const inFolder = await downloadArchivedFile(file, { archiveUrl: server.url, token: TOKEN, out: outDir });
  expect(inFolder.path).toBe(path.join(outDir, 'generated.mp4'));
  expect(readdirSync(outDir).filter((f) => f.endsWith('.part'))).toEqual([]);
});

test('bytes or sha256 that differ from the result: an error naming the file, nothing written, no partial file', async () => {
  const file = archived('erased.mp4', BYTES, 'erase-2');
  const target = path.join(outDir, 'mismatch.mp4');
  for (const wrong of [
    { ...file, sha256: sha256(Buffer.from('other')) },
    { ...file, bytes: file.bytes + 1 },
  ]) {
    const p = downloadArchivedFile(wrong, { archiveUrl: server.url, token: TOKEN, out: target, workflowId: 'wf-1' });
    await expect(p).rejects.toThrow(/archived file "erased.mp4" of wf-1: the download does not match/);
    expect(await reasonOf(downloadArchivedFile(wrong, { archiveUrl: server.url, token: TOKEN, out: target }))).toBe(
      'mismatch',
    );
    expect(existsSync(target)).toBe(false);
  }
  expect(readdirSync(outDir).filter((f) => f.startsWith('mismatch'))).toEqual([]);
});

test('a wrong token, a file the worker does not have, an unreachable server, bad options: each its reason', async () => {
  const file = archived('generated.mp4', BYTES);
  const out = path.join(outDir, 'refused.mp4');
  const opts = { archiveUrl: server.url, token: TOKEN, out };
  expect(await reasonOf(downloadArchivedFile(file, { ...opts, token: 'wrong-token-0123456789' }))).toBe('unauthorized');
  expect(await reasonOf(downloadArchivedFile({ ...file, path: '/a/pipe-1/cgt-9/generated.mp4' }, opts))).toBe(
    'not-found',
  );
  expect(await reasonOf(downloadArchivedFile({ ...file, path: 'generated.mp4' }, opts))).toBe('not-found');
  expect(await reasonOf(downloadArchivedFile(file, { ...opts, archiveUrl: 'http://127.0.0.1:1' }))).toBe('unreachable');
  for (const bad of [{ archiveUrl: 'ftp://x' }, { archiveUrl: 'http://u:p@h' }, { token: '' }, { token: 'a\nb' }]) {
    expect(await reasonOf(downloadArchivedFile(file, { ...opts, ...bad }))).toBe('config');
  }
  expect(existsSync(out)).toBe(false);
  const noFolder = downloadArchivedFile(file, { ...opts, out: path.join(outDir, 'missing', 'x.mp4') });
  await expect(noFolder).rejects.toMatchObject({ reason: 'config', option: 'out' });
  await expect(noFolder).rejects.toThrow(`out: cannot write in ${path.join(outDir, 'missing')} (ENOENT)`);
});
