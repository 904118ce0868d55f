/**
 * The wrappers pass signals on and wait (scripts/run.mjs, tools/devstack/main.ts): SIGTERM to
 * `node scripts/run.mjs dev-stack` (what `npm run dev-stack` runs) or `… worker` stops the whole
 * tree; 10 s later no process of it remains, checked by pid. Real dev server, real worker.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/http-server';

const root = path.join(__dirname, '..', '..');

/** Every process below `pid`, by the parent links `ps` shows. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number));
  const below: number[] = [];
  const walk = (p: number) => rows.filter(([, ppid]) => ppid === p).forEach(([c]) => (below.push(c), walk(c)));
  walk(pid);
  return below;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function wrapper(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'run.mjs'), ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

async function until(what: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
}

/** SIGTERM to the wrapper alone; then the wrapper and every process it started are gone within 10 s. */
async function expectTreeStops(w: ReturnType<typeof wrapper>, atLeast: number): Promise<void> {
  const tree = descendants(w.child.pid!);
  expect(tree.length).toBeGreaterThanOrEqual(atLeast);
  const exited = new Promise((resolve) => w.child.on('exit', resolve));
  w.child.kill('SIGTERM');
  await until(() => !alive(w.child.pid!) && tree.every((p) => !alive(p)), 10_000);
  const left = tree.filter(alive);
  for (const p of left) process.kill(p, 'SIGKILL'); // no stray process outlives the test
  expect(left).toEqual([]);
  await exited;
}

test('SIGTERM to the dev-stack wrapper stops the dev server and the emulator', async () => {
  const [port, ui, emu] = [await freePort(), await freePort(), await freePort()];
  const w = wrapper(['dev-stack', '--port', `${port}`, '--ui-port', `${ui}`, '--emulator-port', `${emu}`], {
    ...process.env,
  });
  await until(() => /Ctrl-C stops everything/.test(w.output()) || w.child.exitCode !== null, 120_000);
  expect(w.output()).toContain('Ctrl-C stops everything');
  await expectTreeStops(w, 2); // the devstack tool and its temporal dev server
});

test('SIGTERM to the worker wrapper stops the worker', async () => {
  const w = wrapper(['worker'], {
    ...process.env,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    REELFLOW_TASK_QUEUE: `signals-${Date.now()}`,
    REELFLOW_PROFILE_DEFAULT_API_KEY: 'sk-signals-test-key',
    VENDOR_BASE_URL: 'http://127.0.0.1:9/base',
    VENDOR_IDENTITY_URL: 'http://127.0.0.1:9/identity',
    REELFLOW_STRICT_START: '0', // no vendor listens there: start anyway
    REELFLOW_ARCHIVE_DIR: mkdtempSync(path.join(os.tmpdir(), 'reelflow-signals-')),
  });
  await until(() => /"msg":"polling /.test(w.output()) || w.child.exitCode !== null, 120_000);
  expect(w.output()).toMatch(/"msg":"polling /);
  await expectTreeStops(w, 1);
});
