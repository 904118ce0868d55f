/**
 * A worker PROCESS killed with SIGKILL while a paid create is in flight, and another
 * started: the pipeline completes with exactly one vendor task. Runs the real worker
 * entry (dist/workers/main.js, built by `npm test` before jest starts).
 */
import type { ChildProcess } from 'node:child_process';
import { expectReplays, spawnWorker, startHarness, type Harness } from '../support/harness';
import { until } from '../support/poll';

function startWorkerProcess(h: Harness, name: string): ChildProcess {
  return spawnWorker(h, name, { VENDOR_HEADERS_TIMEOUT_MS: '60000' });
}

describe('worker process killed mid-pipeline', () => {
  let h: Harness;
  const procs: ChildProcess[] = [];
  beforeAll(async () => {
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
    await until('the create to reach the vendor', () => h.emulator.inspect().generationTasks.length === 1, {
      timeoutMs: 90_000,
      everyMs: 100,
    });
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
    // From scratch, as a worker without it in cache would (docs/architecture.md, "Workflow time after a worker dies").
    await expectReplays(handle);
    second.kill('SIGTERM');
  });
});
