/**
 * Workflow time after a worker dies (docs/architecture.md): the only worker is SIGKILLed at a
 * named point of a pipeline, a new one takes over while the pipeline's status is queried,
 * and the pipeline's history must then replay from scratch. Each case kills the worker
 * where a decision used to read Date.now(), which is stale live in the first task after
 * the takeover and right on replay: the replay failed with "Nondeterminism error".
 */
import type { ChildProcess } from 'node:child_process';
import { buildCallbackUrl } from '../../src/callbacks/token';
import { CALLBACK_SECRET, expectReplays, post, spawnWorker, startHarness, type Harness } from '../support/harness';
import { killWhenTimerStarts, resultWhileQuerying, statusThroughTakeover, timersOf } from '../support/worker-kill';

const generation = { model: 'video-model-1', content: [{ type: 'text' as const, text: 'a clock that survives' }] };

describe('workflow time after a worker dies', () => {
  let h: Harness;
  const procs: ChildProcess[] = [];
  const worker = (name: string, env: Record<string, string> = {}) => {
    const p = spawnWorker(h, name, env);
    procs.push(p);
    return p;
  };
  beforeAll(async () => {
    h = await startHarness({
      callbacks: true,
      inProcessWorkers: false,
      emulator: { profile: { generationRunningMs: 4_000 } },
    });
  });
  afterEach(() => {
    procs.splice(0).forEach((p) => p.exitCode === null && p.kill('SIGKILL'));
  });
  afterAll(async () => h?.close());

  /**
   * A pipeline whose generation create is ambiguous (the vendor creates the task but holds its
   * answer past the client's timeout) and whose callbacks never come, its worker killed once
   * the callback grace has begun, and the next worker started.
   */
  const killedInGrace = async (name: string, callbackGrace: string) => {
    h.emulator.setFaults({
      'generation.create': { delayAfterCreate: { next: 1, ms: 30_000 } },
      'generation.callback': { callbackDrop: { probability: 1 } },
    });
    const env = { VENDOR_HEADERS_TIMEOUT_MS: '2000' };
    const first = worker(`${name}-1`, env);
    const handle = await h.start({
      generation,
      options: { callbacks: true, ambiguousCreate: { generation: 'resubmit' }, deadlines: { callbackGrace } },
    });
    await killWhenTimerStarts(handle, first, 'callback grace');
    worker(`${name}-2`, env);
    return handle;
  };

  test('killed during the callback grace after an ambiguous create: the grace ends once, the history replays', async () => {
    // Only the grace's timer ends the wait; then the create is resubmitted.
    const handle = await killedInGrace('grace', '5s');
    const result = await resultWhileQuerying(handle);
    expect(result.vendorTasks.filter((t) => t.kind === 'generation')).toHaveLength(1);
    expect((await timersOf(handle)).filter((s) => s.includes('callback grace'))).toHaveLength(1);
    await expectReplays(handle);
  }, 240_000);

  test('killed during the callback grace, two task ids offered meanwhile: checked a second apart, the history replays', async () => {
    const handle = await killedInGrace('offers', '20s');
    // Forged ids, well formed and unknown at the vendor: the first task after the takeover checks
    // one, the task that has its answer checks the other, after the spacing interval.
    const url = buildCallbackUrl(
      h.receiver!.url,
      CALLBACK_SECRET,
      handle.workflowId,
      'generation',
      1,
      handle.firstExecutionRunId,
    );
    await Promise.all(['cgt-forged-a', 'cgt-forged-b'].map((id) => post(url, { id, status: 'succeeded' })));
    // Refused offers mean a task may exist: the operator is asked, whatever the policy.
    const waiting = await statusThroughTakeover(handle, (s) => s.state === 'waiting-operator');
    expect(waiting.waiting?.reason).toContain('cgt-forged-b');
    expect((await timersOf(handle)).filter((s) => s.includes('next check of an offered task id'))).toHaveLength(1);
    await expectReplays(handle);
    await handle.terminate('test over');
  }, 240_000);

  test('killed while a create waits out a 429: the Retry-After hold decided alike live and on replay', async () => {
    // The retry's timer covers the Retry-After the 429 recorded; after the takeover the hold
    // before the next attempt must not start a timer that a replay would not.
    h.emulator.setFaults({ 'generation.create': { rateLimit429: { next: 1, retryAfterSeconds: 3 } } });
    const first = worker('429-1');
    const handle = await h.start({ generation, options: { callbacks: true } });
    await killWhenTimerStarts(handle, first, 'rate limited (Retry-After)');
    worker('429-2');
    const result = await resultWhileQuerying(handle);
    expect(result.vendorTasks.filter((t) => t.kind === 'generation')).toHaveLength(1);
    await expectReplays(handle);
  }, 240_000);

  test('killed while a poll waits, woken by a callback: the history replays', async () => {
    h.emulator.setFaults({});
    const first = worker('hint-1');
    const handle = await h.start({ generation, options: { callbacks: true } });
    // The first wait between polls is 6 s (2 s, slowed down while callbacks are expected);
    // the task ends after 4 s, and its callback cuts the wait short.
    await killWhenTimerStarts(handle, first, 'before next poll of');
    worker('hint-2');
    const result = await resultWhileQuerying(handle);
    expect(result.generation?.taskId).toBeDefined();
    await expectReplays(handle);
  }, 240_000);
});
