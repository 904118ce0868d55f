/**
 * A real callback URL must not steer a pipeline (docs/security.md, "Callbacks"), on the real
 * dev server with the emulator over HTTP and the real callback receiver.
 *
 * Seen live: P2's generation create got a 500 after the vendor created its task; a POST
 * of {"id":"<P1's task id>"} to P2's callback URL made P2 complete with P1's video, and
 * P2's own paid task was recorded nowhere.
 */
import { temporal } from '@temporalio/proto';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { buildCallbackUrl } from '../../src/callbacks/token';
import { createVendorClient } from '../../src/vendor-api';
import { resolveCreateUpdate, statusQuery } from '../../src/contract/messages';
import { CALLBACK_SECRET, post, startHarness, waitForStatus, type Harness } from '../support/harness';
import { API_KEY, USER_1 } from '../support/emulator';
import { until } from '../support/poll';

const MODEL = 'video-model-1';
const generationOnly = (options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  generation: { model: MODEL, content: [{ type: 'text', text: 'callback forgery test' }] },
  options: { archive: false, callbacks: true, ...options },
});

/** The URL the vendor got for a pipeline's generation create, attempt 1 (it binds the pipeline's first run). */
const generationCallbackUrl = (h: Harness, p: { workflowId: string; firstExecutionRunId: string }) =>
  buildCallbackUrl(h.receiver!.url, CALLBACK_SECRET, p.workflowId, 'generation', 1, p.firstExecutionRunId);

/** A task created at the vendor by someone else (not a pipeline): what an attacker may own. */
async function createDirectly(h: Harness, model: string): Promise<string> {
  const res = await fetch(`${h.emulator.url}/v1/task/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify({ model, content: [{ type: 'text', text: 'a decoy' }] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

describe('forged callbacks to a real callback URL', () => {
  const QUEUED_MS = 3_600_000; // generation tasks wait in the queue until the test moves emulator time
  let shiftMs = 0; // the emulator's base clock; moved back to create a task "long ago"
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      callbacks: true,
      emulator: {
        profile: { generationQueuedMs: QUEUED_MS, generationRunningMs: 1_000 },
        clock: () => Date.now() + shiftMs,
      },
    });
  });
  afterAll(async () => h?.close());

  test("P2 adopts neither P1's task, nor a task of another model, nor one created before its attempt; it asks the operator (policy resubmit), and its own task ends the wait", async () => {
    // P1 runs a generation; its task id is claimed by P1's search attribute.
    const p1 = await h.start(generationOnly());
    const t1 = await until(
      'P1 records its task',
      async () => (await p1.query(statusQuery)).vendorTasks.find((t) => t.kind === 'generation')?.id,
    );
    await until('P1 claims its task in visibility', async () => {
      for await (const wf of h.client.workflow.list({ query: `ReelflowVendorTaskIds = '${t1}'` })) {
        if (wf.workflowId === p1.workflowId) return true;
      }
      return undefined;
    });
    // Two tasks nobody claims: one of another model, one created two hours ago.
    const tm = await createDirectly(h, 'video-model-2');
    shiftMs = -2 * 3_600_000;
    const old = await createDirectly(h, MODEL);
    shiftMs = 0;

    // P2's create is answered 500 after the vendor created its task; the vendor's own
    // callbacks are lost for now.
    h.emulator.setFaults({
      'generation.create': { error500AfterCreate: { next: 1 } },
      'generation.callback': { callbackDrop: { probability: 1 } },
    });
    const p2 = await h.start(
      generationOnly({ ambiguousCreate: { generation: 'resubmit' }, deadlines: { callbackGrace: '20s' } }),
    );
    await until(
      'P2 create answered 500',
      () =>
        h.emulator.inspect().requests.some((r) => r.endpoint === 'generation.create' && r.status === 500) || undefined,
    );
    const ofP2 = (u?: string) => Boolean(u?.includes(`/${encodeURIComponent(p2.workflowId)}/`));
    const t2 = h.emulator.inspect().generationTasks.find((t) => ofP2(t.callbackUrl))!.id;

    // Within the callback grace: forged callbacks to P2's real URL. The receiver relays them.
    const url = generationCallbackUrl(h, p2);
    expect(await post(url, { id: t1 })).toBe(204);
    expect(await post(url, { id: tm, status: 'queued' })).toBe(204);
    expect(await post(url, { id: old, status: 'succeeded' })).toBe(204);

    // None is adopted; although the policy is resubmit, a task may exist: the operator is asked.
    const waiting = await waitForStatus(
      p2,
      (s) =>
        s.state === 'waiting-operator' && [t1, tm, old].every((id) => s.waiting?.reason.includes(`${id} (refused:`)),
      90_000,
    );
    const reason = waiting.waiting!.reason;
    expect(reason).toMatch(new RegExp(`${t1} \\(refused: [^|]*claimed by pipeline ${p1.workflowId}`));
    expect(reason).toMatch(
      new RegExp(`${tm} \\(refused: [^|]*its model is video-model-2, this create asked for ${MODEL}`),
    );
    expect(reason).toMatch(new RegExp(`${old} \\(refused: [^|]*created [^|]*outside this attempt's`));
    expect(reason).not.toContain(t2);
    expect(waiting.vendorTasks.map((t) => t.id)).toEqual([]);
    expect(
      h.emulator.inspect().requests.filter((r) => r.endpoint === 'generation.create' && ofP2(r.callbackUrl)),
    ).toHaveLength(1);

    // The vendor's own callback for P2's task arrives late (its task leaves the queue): it ends the wait.
    h.emulator.setFaults({});
    h.emulator.advanceClock(QUEUED_MS);
    const result = await p2.result();
    expect(result.generation?.taskId).toBe(t2);
    expect(result.vendorTasks).toEqual([
      expect.objectContaining({ kind: 'generation', id: t2, via: 'callback', attempt: 1 }),
    ]);
    expect(result.calls['generation.create']).toBe(1);
    expect((await p1.result()).generation?.taskId).toBe(t1);
  });

  test('review: a task id of other media is refused; the operator is asked although the policy is resubmit', async () => {
    h.emulator.setFaults({
      'review.async': { error500AfterCreate: { next: 1 } },
      'review.callback': { callbackDrop: { probability: 1 } },
    });
    const p = await h.start({
      review: { media: ['https://media.example.com/forgery/mine.png'] },
      options: { archive: false, callbacks: true, deadlines: { callbackGrace: '20s' } },
    });
    const child = p.workflowId;
    const ofP = (u?: string) => Boolean(u?.includes(`/${encodeURIComponent(child)}/`));
    await until(
      'review submit answered 500',
      () =>
        h.emulator
          .inspect()
          .requests.some((r) => r.endpoint === 'review.async' && r.status === 500 && ofP(r.callbackUrl)) || undefined,
    );
    const vendor = createVendorClient({
      baseUrl: h.emulator.url,
      identityUrl: h.emulator.url,
      apiKey: API_KEY,
      accessToken: USER_1,
    });
    const other = ['https://media.example.com/forgery/x.png', 'https://media.example.com/forgery/y.png'];
    const forged = (await vendor.review.submitAsync({ images: other })).task_id;
    await vendor.close();
    const url = buildCallbackUrl(h.receiver!.url, CALLBACK_SECRET, child, 'review-b0', 1, p.firstExecutionRunId);
    expect(await post(url, { code: 200, task_id: forged, status: 'completed' })).toBe(204);

    const waiting = await waitForStatus(
      p,
      (s) => s.state === 'waiting-operator' && Boolean(s.waiting?.reason.includes(`${forged} (refused:`)),
    );
    expect(waiting.waiting!.reason).toContain(`${forged} (refused: it holds 2 media, this batch submitted 1`);
    const genuine = h.emulator.inspect().reviewTasks.find((t) => ofP(t.callbackUrl))!.taskId;
    await p.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: genuine } }] });
    const result = await p.result();
    expect(result.review?.batches.map((b) => b.taskId)).toEqual([genuine]);
    expect(result.vendorTasks.map((t) => t.id)).toEqual([genuine]);
    expect(result.calls['review.submitAsync']).toBe(1);
  });
});

describe('replays of one callback URL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      callbacks: true,
      emulator: { profile: { generationQueuedMs: 300, generationRunningMs: 8_000 } },
    });
  });
  afterAll(async () => h?.close());

  test('240 replays and 40 made-up states: few vendor queries and signal events, and the pipeline completes', async () => {
    const handle = await h.start(generationOnly());
    const status = await waitForStatus(handle, (s) =>
      s.vendorTasks.some((t) => t.kind === 'generation' && t.state === 'running'),
    );
    const taskId = status.vendorTasks[0].id;
    const url = generationCallbackUrl(h, handle);

    const replays = await Promise.all(Array.from({ length: 240 }, () => post(url, { id: taskId, status: 'running' })));
    const madeUp = await Promise.all(
      Array.from({ length: 40 }, (_, i) => post(url, { id: taskId, status: `made-up-${i}` })),
    );
    expect(new Set(replays)).toEqual(new Set([204])); // a replay of a relayed callback: nothing to retry
    expect(madeUp.filter((s) => s === 429).length).toBeGreaterThan(25); // a burst of 10 per URL, then 1 per 5 s

    const result = await handle.result();
    expect(result.generation?.taskId).toBe(taskId);
    const queries = h.emulator
      .inspect()
      .requests.filter((r) => r.endpoint === 'generation.get' && r.resourceId === taskId);
    // The polls of an 8 s task at the callback cadence (about 4), plus at most one per callback
    // the URL's bucket admits (10 at once, the genuine ones included). Before: one per POST.
    expect(queries.length).toBeLessThanOrEqual(12);
    const history = await h.client.workflow.getHandle(handle.workflowId).fetchHistory();
    const signals = (history.events ?? []).filter(
      (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    );
    // The genuine queued/running/succeeded, plus what the per-URL bucket admits (10, then 1 per 5 s).
    expect(signals.length).toBeLessThanOrEqual(14);
  });
});
