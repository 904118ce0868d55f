/**
 * A worker PROCESS killed with SIGKILL while a paid create is in flight, and another
 * started: the pipeline completes with exactly one vendor task. Runs the real worker
 * entry (dist/src/workers/main.js, built by `npm test` before jest starts).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import path from 'node:path';
import { CALLBACK_SECRET, startHarness, type Harness } from './harness';

const WORKER_MAIN = path.resolve(__dirname, '../../dist/src/workers/main.js');

function startWorkerProcess(h: Harness, name: string): ChildProcess {
  const log = openSync(path.join(h.archiveRoot, `${name}.log`), 'a');
  return spawn(process.execPath, [WORKER_MAIN], {
    stdio: ['ignore', log, log],
    env: {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
      VENDOR_BASE_URL: h.emulator.url,
      VENDOR_IDENTITY_URL: h.emulator.url,
      VENDOR_HEADERS_TIMEOUT_MS: '60000',
      REELFLOW_PROFILE_DEFAULT_API_KEY: 'emu-key',
      REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: 'emu-user-1',
      REELFLOW_TASK_QUEUE: h.taskQueue,
      REELFLOW_ARCHIVE_DIR: h.archiveRoot,
      REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves media on 127.0.0.1
      REELFLOW_CALLBACK_BASE_URL: h.receiver!.url,
      REELFLOW_CALLBACK_SECRET: CALLBACK_SECRET,
    },
  });
}

async function until(pred: () => boolean, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('worker process killed mid-pipeline', () => {
  let h: Harness;
  const procs: ChildProcess[] = [];
  beforeAll(async () => {
    if (!existsSync(WORKER_MAIN))
      throw new Error(`${WORKER_MAIN} missing: run \`npm test\` (it compiles first) or \`npm run build\``);
    h = await startHarness({
      callbacks: true,
      inProcessWorkers: false,
      emulator: { profile: { generationRunningMs: 1_000 } },
    });
  });
  afterAll(async () => {
    procs.forEach((p) => p.exitCode === null && p.kill('SIGKILL'));
    await h?.close();
  });

  test('SIGKILL during a paid create: the next worker reconciles, one generation task, pipeline completes', async () => {
    // The vendor creates the task but holds its answer: the worker dies with the request in flight.
    h.emulator.setFaults({ 'generation.create': { delayAfterCreate: { next: 1, ms: 60_000 } } });
    const first = startWorkerProcess(h, 'worker-1');
    procs.push(first);
    const handle = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'survive a crash' }] },
      erase: true,
      options: { callbacks: true, deadlines: { createAttempt: '8s' } },
    });
    await until(() => h.emulator.inspect().generationTasks.length === 1, 90_000, 'the create to reach the vendor');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    const second = startWorkerProcess(h, 'worker-2');
    procs.push(second);
    const result = await handle.result();
    const s = h.emulator.inspect();
    expect(s.generationTasks).toHaveLength(1);
    expect(s.eraseTasks).toHaveLength(1);
    expect(result.generation?.taskId).toBe(s.generationTasks[0].id);
    expect(result.vendorTasks.find((t) => t.kind === 'generation')?.via).toBe('callback');
    expect(result.archived).toHaveLength(2);
    second.kill('SIGTERM');
  });
});
