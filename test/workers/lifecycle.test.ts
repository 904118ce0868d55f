/**
 * `reelflow worker` as a process (test/workers/cli-worker-child.js runs the CLI's entry): a
 * listener that cannot bind stops it at once, non-zero, naming the variable; a second signal
 * during shutdown exits non-zero; /livez and /readyz (docs/deploy.md). Against the real dev server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/http-server';
import { DEFAULT_ACCESS_TOKENS, DEFAULT_API_KEYS, startEmulator } from '../../src/emulator';

const SECRETS = ['lifecycle-callback-secret-abcdef', 'sk-lifecycle-api-key', 'lifecycle-archive-token-abcdef'];

function env(taskQueue: string, over: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    REELFLOW_TASK_QUEUE: taskQueue,
    REELFLOW_PROFILE_DEFAULT_API_KEY: SECRETS[1],
    VENDOR_BASE_URL: 'http://127.0.0.1:9/base',
    VENDOR_IDENTITY_URL: 'http://127.0.0.1:9/identity',
    // No vendor listens there: the start-up checks fail, and the worker is told to start anyway.
    REELFLOW_STRICT_START: '0',
    REELFLOW_ARCHIVE_DIR: mkdtempSync(path.join(os.tmpdir(), 'reelflow-lifecycle-')),
    REELFLOW_CALLBACK_BASE_URL: 'https://hooks.example.com/rf',
    REELFLOW_CALLBACK_SECRET: SECRETS[0],
    REELFLOW_CALLBACK_HOST: '127.0.0.1',
    REELFLOW_CALLBACK_PORT: '0',
    ...over,
  };
}

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

function startWorker(vars: NodeJS.ProcessEnv): Run {
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(__dirname, 'cli-worker-child.js')], {
    env: vars,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - started })),
  );
  return { child, output: () => out, exited };
}

/** The exit, or a kill (SIGKILL) after `ms`: a hung process fails the test instead of jest. */
async function exitWithin(run: Run, ms: number) {
  const timer = setTimeout(() => run.child.kill('SIGKILL'), ms);
  try {
    return await run.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A port held by another listener for the test's length. */
async function takenPort(): Promise<{ port: number; close: () => void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

async function untilOutput(run: Run, pattern: RegExp, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(run.output()) && run.child.exitCode === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect(run.output()).toMatch(pattern);
}

test.each([
  ['REELFLOW_CALLBACK_PORT', (port: number) => ({ REELFLOW_CALLBACK_PORT: String(port) })],
  [
    'REELFLOW_ARCHIVE_PORT',
    (port: number) => ({
      REELFLOW_ARCHIVE_TOKEN: SECRETS[2],
      REELFLOW_ARCHIVE_HOST: '127.0.0.1',
      REELFLOW_ARCHIVE_PORT: String(port),
    }),
  ],
  ['REELFLOW_HEALTH_BIND', (port: number) => ({ REELFLOW_HEALTH_BIND: `127.0.0.1:${port}` })],
])('a taken %s stops the worker at once, non-zero, naming the variable', async (variable, vars) => {
  const taken = await takenPort();
  try {
    const run = startWorker(env(`lifecycle-${variable}-${Date.now()}`, vars(taken.port)));
    const { code, signal } = await exitWithin(run, 20_000);
    expect([code, signal]).toEqual([1, null]);
    expect(run.output()).toContain(
      `${variable}: cannot listen on 127.0.0.1:${taken.port} (EADDRINUSE: the port is taken)`,
    );
    for (const secret of SECRETS) expect(run.output()).not.toContain(secret);
  } finally {
    taken.close();
  }
});

test('a second SIGTERM during shutdown exits at once, non-zero; one SIGTERM drains and exits 0', async () => {
  const twice = startWorker(env(`lifecycle-twice-${Date.now()}`));
  await untilOutput(twice, /reelflow worker: polling/);
  // A request half sent to the receiver holds the drain for its close grace (2 s), so the second
  // signal lands during shutdown (two signals sent at once may reach the process as one).
  const port = Number(/callback receiver listening on 127\.0\.0\.1:(\d+)/.exec(twice.output())?.[1]);
  const held = net.connect(port, '127.0.0.1', () => held.write('POST /callbacks/x HTTP/1.1\r\nhost: a\r\n'));
  held.on('error', () => undefined);
  await new Promise((r) => setTimeout(r, 200));
  twice.child.kill('SIGTERM');
  await untilOutput(twice, /"state":"STOPPED"/, 10_000);
  twice.child.kill('SIGTERM');
  const second = await exitWithin(twice, 30_000);
  expect([second.code, second.signal]).toEqual([143, null]);
  expect(twice.output()).toContain('SIGTERM again during shutdown: exiting at once');
  held.destroy();

  const once = startWorker(env(`lifecycle-once-${Date.now()}`));
  await untilOutput(once, /reelflow worker: polling/);
  once.child.kill('SIGTERM');
  const first = await exitWithin(once, 30_000);
  expect([first.code, first.signal]).toEqual([0, null]);
});

test('/livez answers while the process lives; /readyz only once the pollers run', async () => {
  const port = await freePort();
  const run = startWorker(env(`lifecycle-health-${Date.now()}`, { REELFLOW_HEALTH_BIND: `127.0.0.1:${port}` }));
  try {
    await untilOutput(run, /reelflow worker: polling/);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    // The vendor (127.0.0.1:9) is down, so the start-up checks failed: not ready, and why.
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toMatch(/start-up checks failed: /);
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  } finally {
    run.child.kill('SIGTERM');
    await exitWithin(run, 30_000);
  }
});

test('/readyz is green once the checks passed, the bundle is loaded and every poller runs', async () => {
  const emulator = await startEmulator({ port: 0 });
  const port = await freePort();
  const run = startWorker(
    env(`lifecycle-ready-${Date.now()}`, {
      REELFLOW_HEALTH_BIND: `127.0.0.1:${port}`,
      VENDOR_BASE_URL: emulator.url,
      VENDOR_IDENTITY_URL: emulator.url,
      REELFLOW_PROFILE_DEFAULT_API_KEY: DEFAULT_API_KEYS[0],
      REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: DEFAULT_ACCESS_TOKENS[0],
      REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1',
    }),
  );
  try {
    await untilOutput(run, /reelflow worker: polling/);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
    run.child.kill('SIGTERM');
    await exitWithin(run, 30_000);
  } finally {
    run.child.kill('SIGKILL');
    await emulator.close();
  }
});
