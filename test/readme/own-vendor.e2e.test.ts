/**
 * README "Use your own vendor account", followed as a new user would, against a vendor that
 * is not the emulator's default: the emulator as a process of its own on a random port with
 * its own path word. The environment holds ONLY the variables the README's steps `export`
 * (plus PATH and an empty HOME), each given the value this vendor needs; a variable the run
 * needs and the README does not document fails the test (fix the README, not the test).
 * Then the steps, each the built CLI as a process: `reelflow setup`, `reelflow worker`,
 * `reelflow doctor` (every check ✓), `reelflow validate` and `reelflow run` of
 * examples/generation-only.json to completion. With the README's default path word the
 * doctor says ✗ and names it.
 *
 * Needs the build (`node scripts/run.mjs build`; `npm test` builds first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_ACCESS_TOKENS, DEFAULT_API_KEYS } from '../../src/emulator';
import { freePort } from '../../tools/devstack/dev-server';
import { exportedNames, readPage, ROOT, section } from './markdown';

const CLI = path.join(ROOT, 'dist/starters/cli/main.js');
const EMULATOR = path.join(ROOT, 'dist/emulator/main.js');
const PATH_WORD = 'acme';
/** The README's default path word (step 3: "default svc"). */
const DEFAULT_PATH_WORD = 'svc';

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children: ChildProcess[] = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'reelflow-own-vendor-'));

/** Starts a product entry point; `ready` resolves on the first line of stdout/stderr that matches. */
function start(script: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp) {
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  const matched = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = ready.exec(output);
      if (m) resolve(m[0]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${path.basename(script)} exited ${code} before ready:\n${output}`)));
  });
  return { child, matched, output: () => output };
}

/** One `reelflow …` command to its end. */
function reelflow(args: string[], env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

afterAll(async () => {
  for (const child of children.reverse()) await stop(child);
});

let env: NodeJS.ProcessEnv;
let values: Record<string, string>;
let documented: string[];

beforeAll(async () => {
  for (const built of [CLI, EMULATOR])
    if (!existsSync(built)) throw new Error(`${built} missing: run \`node scripts/run.mjs build\` first`);
  const emulator = start(
    EMULATOR,
    ['--port', '0', '--path-word', PATH_WORD],
    {
      PATH: process.env.PATH,
    },
    /listening on (http:\/\/\S+)/,
  );
  const vendorUrl = /http:\/\/\S+/.exec(await emulator.matched)![0];
  expect(new URL(vendorUrl).port).not.toBe('8080'); // not the emulator's default port
  const callbackPort = await freePort();

  documented = exportedNames(section(readPage('README.md'), 'Use your own vendor account'));
  values = {
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
    REELFLOW_TASK_QUEUE: `own-vendor-${randomUUID()}`, // alone on the shared test server
    VENDOR_BASE_URL: vendorUrl,
    VENDOR_IDENTITY_URL: vendorUrl,
    VENDOR_PATH_WORD: PATH_WORD,
    REELFLOW_PROFILE_DEFAULT_API_KEY: DEFAULT_API_KEYS[0],
    REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: DEFAULT_ACCESS_TOKENS[0],
    REELFLOW_ARCHIVE_DIR: path.join(tmp, 'archive'),
    REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves the videos on 127.0.0.1
    REELFLOW_CALLBACK_BASE_URL: `http://127.0.0.1:${callbackPort}`,
    REELFLOW_CALLBACK_PORT: String(callbackPort),
    REELFLOW_CALLBACK_SECRET: randomBytes(32).toString('base64'),
  };
  const home = path.join(tmp, 'home'); // no temporal.toml or anything else of this machine's
  mkdirSync(home);
  env = { PATH: process.env.PATH, HOME: home, ...values };
}, 60_000);

test('every variable the run needs is one the README documents, and the test sets each it documents', () => {
  expect(documented.length).toBeGreaterThan(5);
  expect(Object.keys(values).filter((name) => !documented.includes(name))).toEqual([]);
  expect(documented.filter((name) => !(name in values))).toEqual([]);
});

test('the steps come in the order this test follows them', () => {
  const steps = section(readPage('README.md'), 'Use your own vendor account');
  const at = ['reelflow setup', 'reelflow worker', 'reelflow doctor', 'reelflow run examples/generation-only.json'].map(
    (command) => steps.indexOf(`npx ${command}`),
  );
  expect(at.every((i) => i >= 0)).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
});

test('from setup to a completed pipeline, with the doctor green first', async () => {
  const setup = await reelflow(['setup'], env);
  expect(setup).toMatchObject({ code: 0 });

  const worker = start(CLI, ['worker'], env, /^reelflow worker: polling .*$/m);
  expect(await worker.matched).toContain(values.REELFLOW_TASK_QUEUE);

  // The pollers show up on the server a moment after the worker starts polling.
  let doctor: Exit;
  const until = Date.now() + 30_000;
  do doctor = await reelflow(['doctor'], env);
  while (doctor.code !== 0 && Date.now() < until && (await new Promise((r) => setTimeout(r, 1_000, true))));
  const checks = doctor.stdout.trimEnd().split('\n').slice(0, -1);
  expect({ code: doctor.code, failed: checks.filter((l) => !l.startsWith('✓')) }).toEqual({ code: 0, failed: [] });
  expect(doctor.stdout).toMatch(/^all \d+ checks passed$/m);
  expect(doctor.stdout).toContain(
    `✓ vendor erase (profile default): credentials accepted, /api/v1/${PATH_WORD}-tasks/`,
  );
  expect(doctor.stdout).toContain(`✓ callback receiver: ${values.REELFLOW_CALLBACK_BASE_URL}/healthz answered 200`);

  const validate = await reelflow(['validate', 'examples/generation-only.json'], env);
  expect(validate).toMatchObject({ code: 0 });
  const run = await reelflow(['run', 'examples/generation-only.json'], env);
  expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
  expect(run.stderr).toContain(`on task queue "${values.REELFLOW_TASK_QUEUE}"`);
  const id = /^pipeline (reelflow-text-to-video-\w+) completed$/m.exec(run.stdout)?.[1];
  expect(id).toBeDefined();
  // Archived by the worker: <REELFLOW_ARCHIVE_DIR>/<pipeline id>/<generation task id>/generated.mp4.
  const [taskFolder] = readdirSync(path.join(values.REELFLOW_ARCHIVE_DIR, id!));
  expect(taskFolder).toMatch(/^cgt-/);
  expect(readdirSync(path.join(values.REELFLOW_ARCHIVE_DIR, id!, taskFolder))).toContain('generated.mp4');
  expect(run.stdout + run.stderr + worker.output()).not.toContain(values.REELFLOW_CALLBACK_SECRET);
}, 300_000);

test("with the README's default path word the doctor says ✗ and names it", async () => {
  const doctor = await reelflow(['doctor'], { ...env, VENDOR_PATH_WORD: DEFAULT_PATH_WORD });
  expect(doctor.code).toBe(1);
  // The lines of docs/doctor.md's sample, as printed.
  const sample = readPage('docs/doctor.md');
  for (const line of [
    `✗ vendor erase (profile default): /api/v1/${DEFAULT_PATH_WORD}-tasks/{id} is not a vendor endpoint (bare HTTP 404)`,
    `    fix: VENDOR_PATH_WORD is "${DEFAULT_PATH_WORD}": set it to the word your vendor's erase paths carry (/api/v1/<word>-tasks/{id}), or check VENDOR_BASE_URL`,
  ]) {
    expect(sample).toContain(line);
    expect(doctor.stdout).toContain(line);
  }
  expect(doctor.stdout).toMatch(/^1 of \d+ checks failed$/m);
}, 60_000);
