/**
 * `reelflow archive get` end to end: the REAL worker process (dist/workers/main.js) with
 * REELFLOW_ARCHIVE_TOKEN archives a pipeline's videos and serves them on its archive
 * port; the CLI (in-process, runCli) reads the pipeline's result from the dev server,
 * downloads the file through the worker and checks it against the result's sha256 and
 * bytes. Then the refusals (a wrong token, a missing variable, an unknown name) and
 * doctor's archive server check.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PipelineResult } from '../../src/contract/messages';
import { cli } from '../support/cli';
import { spawnWorker, startHarness, workerEnv, type Harness } from '../support/harness';
import { freePort } from '../support/http-server';
import { until } from '../support/poll';

const TOKEN = 'e2e-archive-token-0123456789abcdef';

let h: Harness;
let worker: ChildProcess;
let archiveUrl: string;
let result: PipelineResult;
let workflowId: string;
const out = mkdtempSync(path.join(os.tmpdir(), 'reelflow-archive-get-'));

function env(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, REELFLOW_ARCHIVE_URL: archiveUrl, REELFLOW_ARCHIVE_TOKEN: TOKEN, ...overrides };
}

beforeAll(async () => {
  h = await startHarness({
    inProcessWorkers: false,
    emulator: { profile: { generationRunningMs: 500, eraseInProgressMs: 500 } },
  });
  const port = await freePort();
  archiveUrl = `http://127.0.0.1:${port}`;
  worker = spawnWorker(h, 'archive-worker', {
    REELFLOW_ARCHIVE_TOKEN: TOKEN,
    REELFLOW_ARCHIVE_PORT: String(port),
    REELFLOW_ARCHIVE_HOST: '127.0.0.1',
  });
  await until('the archive server answers', () =>
    fetch(`${archiveUrl}/healthz`).then(
      (r) => (r.ok ? true : undefined),
      () => undefined,
    ),
  );
  const run = await h.run({
    name: 'archive-get',
    generation: { model: 'video-model-1', content: [{ type: 'text', text: 'a lighthouse at dusk' }] },
    erase: true,
  });
  result = run.result;
  workflowId = run.handle.workflowId;
});
afterAll(async () => {
  if (worker?.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  }
  await h?.close();
});

test('the erased video by default, then the generated one by --name: the bytes and sha256 of the result', async () => {
  expect(result.archived.map((f) => f.name)).toEqual(['generated.mp4', 'erased.mp4']);
  const erased = result.archived[1];
  const got = await cli(['archive', 'get', workflowId, '--out', out, '--json'], { env: env() });
  expect(got.stderr).toBe('');
  expect(got.code).toBe(0);
  expect(got.json()).toEqual({ path: path.join(out, 'erased.mp4'), bytes: erased.bytes, sha256: erased.sha256 });
  const written = readFileSync(path.join(out, 'erased.mp4'));
  expect(written.length).toBe(erased.bytes);
  expect(createHash('sha256').update(written).digest('hex')).toBe(erased.sha256);

  const generated = result.archived[0];
  const target = path.join(out, 'clip.mp4');
  const human = await cli(['archive', 'get', workflowId, '--name', 'generated.mp4', '--out', target], { env: env() });
  expect(human.code).toBe(0);
  expect(human.stdout).toBe(`${target}  ${generated.bytes} bytes  sha256 ${generated.sha256}\n`);
  expect(createHash('sha256').update(readFileSync(target)).digest('hex')).toBe(generated.sha256);
  expect(readdirSync(out).sort()).toEqual(['clip.mp4', 'erased.mp4']);
});

test('a wrong token: exit 1, the reason, nothing written, the token in no output', async () => {
  const wrong = 'not-the-worker-token-0123456789';
  const target = path.join(out, 'refused.mp4');
  const r = await cli(['archive', 'get', workflowId, '--out', target, '--json'], {
    env: env({ REELFLOW_ARCHIVE_TOKEN: wrong }),
  });
  expect(r.code).toBe(1);
  expect(r.json().error).toMatchObject({ kind: 'archive', reason: 'unauthorized' });
  expect(r.stderr).toContain("refused the token (401): it must be the worker's REELFLOW_ARCHIVE_TOKEN");
  expect(`${r.stdout}${r.stderr}`).not.toContain(wrong);
  expect(readdirSync(out)).not.toContain('refused.mp4');
  const log = readFileSync(path.join(h.archiveRoot, 'archive-worker.log'), 'utf8');
  expect(log).toContain('archive request refused: missing or wrong token (401)');
  expect(log).not.toContain(wrong);
  expect(log).not.toContain(TOKEN);
});

test('a missing variable or an unknown name: an error naming it', async () => {
  const noUrl = await cli(['archive', 'get', workflowId, '--json'], { env: env({ REELFLOW_ARCHIVE_URL: undefined }) });
  expect(noUrl.code).toBe(2);
  expect(noUrl.json().error).toMatchObject({ kind: 'config', variable: 'REELFLOW_ARCHIVE_URL' });
  const badUrl = await cli(['archive', 'get', workflowId], { env: env({ REELFLOW_ARCHIVE_URL: 'worker:8090' }) });
  expect(badUrl.code).toBe(2);
  expect(badUrl.stderr).toContain('REELFLOW_ARCHIVE_URL must be an http(s) URL');
  const noToken = await cli(['archive', 'get', workflowId], { env: env({ REELFLOW_ARCHIVE_TOKEN: '' }) });
  expect(noToken.code).toBe(2);
  expect(noToken.stderr).toContain('REELFLOW_ARCHIVE_TOKEN is not set');
  const unknown = await cli(['archive', 'get', workflowId, '--name', 'final.mp4'], { env: env() });
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('archived no file "final.mp4" (it archived: generated.mp4, erased.mp4)');
});

test("doctor checks the archive server with the worker's token", async () => {
  const doctorEnv = (token: string): NodeJS.ProcessEnv => ({
    ...workerEnv(h),
    REELFLOW_ARCHIVE_DIR: h.archiveRoot,
    REELFLOW_ARCHIVE_URL: archiveUrl,
    REELFLOW_ARCHIVE_TOKEN: token,
  });
  const check = async (token: string) => {
    const r = await cli(['doctor', '--json'], { env: doctorEnv(token) });
    return (r.json().checks as { id: string; ok: boolean; detail: string }[]).find((c) => c.id === 'archive.server');
  };
  expect(await check(TOKEN)).toMatchObject({ ok: true, detail: `${archiveUrl}/archive accepts the token` });
  const wrong = 'doctor-wrong-token-0123456789';
  const refused = await check(wrong);
  expect(refused).toMatchObject({ ok: false, detail: `${archiveUrl}/archive refused the token (401)` });
  expect(JSON.stringify(refused)).not.toContain(wrong);
});
