/**
 * Callback proofs cannot be exhausted or replayed across runs (docs/security.md,
 * "Callbacks"), on the real dev server with the emulator over HTTP and the real callback receiver.
 *
 * Seen before: after an ambiguous create, 8 forged offers filled the attempt's offer budget,
 * so the genuine callback was answered 429 and never checked, and the stage waited for an
 * operator no callback could release. And with a reused workflow id, a task of the earlier
 * pipeline offered through the old URL was adopted.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { buildCallbackUrl } from '../../src/callbacks/token';
import { resolveCreateUpdate, vendorCallbackSignal, type VendorCallbackSignal } from '../../src/contract/messages';
import { CALLBACK_SECRET, post, startHarness, waitForStatus, type Harness } from '../support/harness';
import { until } from '../support/poll';

const MODEL = 'video-model-1';
const EventType = temporal.api.enums.v1.EventType;

const generationOnly = (options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  generation: { model: MODEL, content: [{ type: 'text', text: 'callback lockout test' }] },
  options: { archive: false, callbacks: true, ...options },
});

/** The generation create of `workflowId` was answered 500 after the vendor created its task: that task. */
async function ambiguousTask(h: Harness, workflowId: string, not: string[] = []) {
  const ours = (u?: string) => Boolean(u?.includes(`/${encodeURIComponent(workflowId)}/`));
  await until(
    'create answered 500',
    () =>
      h.emulator
        .inspect()
        .requests.some((r) => r.endpoint === 'generation.create' && r.status === 500 && ours(r.callbackUrl)) ||
      undefined,
  );
  const task = h.emulator.inspect().generationTasks.find((t) => ours(t.callbackUrl) && !not.includes(t.id))!;
  return { id: task.id, url: task.callbackUrl! };
}

/** The vendor GETs of these task ids, in order, with their times (ms). */
function getsOf(h: Harness, ids: readonly string[]): { id: string; at: number }[] {
  return h.emulator
    .inspect()
    .requests.filter((r) => r.endpoint === 'generation.get' && ids.includes(r.resourceId ?? ''))
    .map((r) => ({ id: r.resourceId!, at: Date.parse(r.at) }))
    .sort((a, b) => a.at - b.at);
}

async function callbackSignals(h: Harness, workflowId: string, runId?: string): Promise<VendorCallbackSignal[]> {
  const history = await h.client.workflow.getHandle(workflowId, runId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
    .map((e) => e.workflowExecutionSignaledEventAttributes!)
    .filter((a) => a.signalName === 'vendorCallback')
    .map((a) => defaultPayloadConverter.fromPayload<VendorCallbackSignal>(a.input!.payloads![0]));
}

describe('forged offers after an ambiguous create', () => {
  const QUEUED_MS = 3_600_000; // generation tasks wait in the queue until the test moves emulator time
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      callbacks: true,
      emulator: { profile: { generationQueuedMs: QUEUED_MS, generationRunningMs: 1_000 } },
    });
  });
  afterAll(async () => h?.close());

  const ambiguousStart = async (grace: string) => {
    h.emulator.setFaults({
      'generation.create': { error500AfterCreate: { next: 1 } },
      'generation.callback': { callbackDrop: { probability: 1 } },
    });
    const handle = await h.start(generationOnly({ deadlines: { callbackGrace: grace } }));
    return { handle, genuine: await ambiguousTask(h, handle.workflowId) };
  };

  test('a flood costs at most one vendor check per second per attempt, each distinct id once', async () => {
    const { handle } = await ambiguousStart('90s');
    const run = (await handle.describe()).runId;
    // Whoever can signal (the receiver relays what a URL holder sends): 12 made-up ids, each 3 times, at once.
    const ids = Array.from({ length: 12 }, (_, i) => `cgt-flood-${i}-${handle.workflowId}`);
    const flood = ids.flatMap((taskId) =>
      [0, 1, 2].map(() =>
        handle.signal(vendorCallbackSignal, { step: 'generation', attempt: 1, taskId, status: 'queued', run }),
      ),
    );
    await Promise.all(flood);
    const gets = await until(
      'the offers waiting for their check are checked',
      async () => {
        const g = getsOf(h, ids);
        const reason = (await waitForStatus(handle, () => true)).waiting?.reason ?? '';
        return g.length >= 8 && !reason.includes('being checked') ? g : undefined;
      },
      { timeoutMs: 90_000 },
    );
    await handle.terminate('test over');

    // Each id at most once; consecutive checks at least a second of workflow time apart.
    expect(new Set(gets.map((g) => g.id)).size).toBe(gets.length);
    const elapsed = gets[gets.length - 1].at - gets[0].at;
    expect(elapsed).toBeGreaterThanOrEqual((gets.length - 1) * 1_000 - 500);
    // Before: the 8 offers the attempt took were checked back to back, within about a second.
  });

  test('10 forged offers, then the genuine callback: the pipeline completes without an operator', async () => {
    const { handle, genuine } = await ambiguousStart('20s');
    // Well-formed task ids the vendor does not know, posted to the pipeline's real URL.
    const forged = Array.from({ length: 10 }, (_, i) => `cgt-forged-${i}-${handle.workflowId}`);
    for (const id of forged) await post(genuine.url, { id, status: 'queued' });
    const lastPost = Date.now();
    // The forged ids are checked and refused (the vendor does not know them)...
    await until(
      'the forged offers are refused',
      async () => {
        const s = await waitForStatus(handle, () => true);
        return getsOf(h, forged).length >= 8 && !(s.waiting?.reason ?? '').includes('being checked') ? s : undefined;
      },
      { timeoutMs: 90_000 },
    );
    // ...and the receiver's per-URL bucket has a token again (one per 5 s): only the stage can refuse now.
    await new Promise((r) => setTimeout(r, Math.max(0, lastPost + 6_000 - Date.now())));

    // The vendor's own callback for the genuine task arrives (its task leaves the queue).
    h.emulator.setFaults({});
    h.emulator.advanceClock(QUEUED_MS);
    const result = await Promise.race([
      handle.result(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the genuine callback did not end the wait (locked out)')), 60_000),
      ),
    ]);
    expect(result.generation?.taskId).toBe(genuine.id);
    expect(result.vendorTasks).toEqual([
      expect.objectContaining({ kind: 'generation', id: genuine.id, via: 'callback', attempt: 1 }),
    ]);
    expect(result.calls['generation.create']).toBe(1);
    const signals = await callbackSignals(h, handle.workflowId);
    expect(signals.some((s) => s.taskId === genuine.id)).toBe(true);
  });
});

describe('a reused workflow id', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      callbacks: true,
      emulator: { profile: { generationQueuedMs: 300, generationRunningMs: 1_000 } },
    });
  });
  afterAll(async () => h?.close());

  test("the earlier run's task, offered through its URL or the new run's, is not adopted", async () => {
    const workflowId = `reuse-${Date.now().toString(36)}`;
    const first = await h.start(generationOnly(), workflowId);
    const t1 = (await first.result()).generation!.taskId;
    const url1 = h.emulator.inspect().generationTasks.find((t) => t.id === t1)!.callbackUrl!;
    await until('run 1 claims its task in visibility', async () => {
      for await (const wf of h.client.workflow.list({ query: `ReelflowVendorTaskIds = '${t1}'` })) {
        if (wf.runId === first.firstExecutionRunId) return true;
      }
      return undefined;
    });

    // Run 2 under the same id: its create is ambiguous, the vendor's callbacks are lost for now.
    h.emulator.setFaults({
      'generation.create': { error500AfterCreate: { next: 1 } },
      'generation.callback': { callbackDrop: { probability: 1 } },
    });
    const second = await h.start(generationOnly({ deadlines: { callbackGrace: '15s' } }), workflowId);
    const run2 = second.firstExecutionRunId;
    const t2 = await ambiguousTask(h, workflowId, [t1]);

    // Run 1's task offered through run 1's URL, through today's URL form, and through run 2's own URL.
    const v1Url = buildCallbackUrl(h.receiver!.url, CALLBACK_SECRET, workflowId, 'generation', 1);
    // (States run 1's own callbacks did not carry: the receiver drops an exact replay of one it relayed.)
    expect(await post(url1, { id: t1 })).toBe(204);
    expect(await post(v1Url, { id: t1, status: 'completed' })).toBe(204);
    expect(await post(t2.url, { id: t1, status: 'done' })).toBe(204);

    const waiting = await waitForStatus(
      second,
      (s) => s.state === 'waiting-operator' && Boolean(s.waiting?.reason.includes(`${t1} (refused:`)),
      90_000,
    );
    expect(waiting.waiting!.reason).toMatch(
      new RegExp(`${t1} \\(refused: [^|]*claimed by pipeline ${workflowId} \\(an earlier run`),
    );
    expect(waiting.vendorTasks).toEqual([]);
    // Only the offer through run 2's own URL reached run 2, and it names run 2.
    const offers = (await callbackSignals(h, workflowId, second.firstExecutionRunId)).filter((s) => s.taskId === t1);
    expect(offers).toEqual([expect.objectContaining({ run: run2 })]);

    h.emulator.setFaults({});
    await second.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: t2.id } }] });
    const result = await second.result();
    expect(result.generation?.taskId).toBe(t2.id);
    expect(result.vendorTasks.map((t) => t.id)).toEqual([t2.id]);
  });
});
