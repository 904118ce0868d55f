/**
 * Continue-as-new during the long waits of an ambiguous create (docs/architecture.md,
 * "Continue-as-new"), on the real dev server with the emulator and the callback receiver: an
 * operator wait (policy `ask`) and a reconcile wait (the callback grace). Signals push the history
 * past a small limit so the pipeline continues as new WHILE it waits; callbacks and Updates arrive
 * around the switch. Nothing may be lost: the wait, its offers, the ambiguous attempt, an accepted
 * decision; and no second vendor task is created.
 */
import { temporal } from '@temporalio/proto';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { buildCallbackUrl } from '../../src/callbacks/token';
import {
  statusQuery,
  vendorCallbackSignal,
  type PipelineInput,
  type PipelineResult,
} from '../../src/contract/messages';
import type { videoPipeline } from '../../src/workflows';
import { resolveCreate } from '../../src/starters/client/pipeline-client';
import { CALLBACK_SECRET, post, startHarness, waitForStatus, type Harness } from '../support/harness';
import { until } from '../support/poll';

const EventType = temporal.api.enums.v1.EventType;
type Pipeline = WorkflowHandleWithFirstExecutionRunId<typeof videoPipeline>;

const MODEL = 'video-model-1';
/** Small enough that a few dozen signals cross it; large enough that a run reaches its wait first. */
const HISTORY_LIMIT = 80;
// Each test pads the history to the limit through the real server: slow when the machine is busy.
jest.setTimeout(300_000);

const generationOnly = (options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  generation: { model: MODEL, content: [{ type: 'text', text: 'continue-as-new test' }] },
  options: { archive: false, callbacks: true, historyEventsBeforeContinueAsNew: HISTORY_LIMIT, ...options },
});

const runIdOf = async (handle: Pipeline) => (await handle.describe()).runId;

/**
 * Signals of a step the pipeline does not have (no effect, one history event each) until
 * the run that is current now has continued as new, or the pipeline ended. `before` is
 * sent with the batch that crosses the limit (what must survive the switch).
 */
async function padUntilContinued(
  handle: Pipeline,
  before?: () => Promise<unknown>,
): Promise<{ from: string; to: string; during?: unknown }> {
  const from = await runIdOf(handle);
  const current = async () => {
    const d = await handle.describe();
    return { switched: d.runId !== from || d.status.name !== 'RUNNING', events: Number(d.historyLength) };
  };
  const pad = (k: number) =>
    Promise.allSettled(
      Array.from({ length: k }, () => handle.signal(vendorCallbackSignal, { step: 'padding', attempt: 0 })),
    );
  // Quietly up to a few events below the limit (a third of the gap at a time: one signal per
  // round trip took minutes on a loaded machine), then the concurrent batches.
  for (let now = await current(); !now.switched && now.events < HISTORY_LIMIT - 8; now = await current()) {
    await pad(Math.max(1, Math.floor((HISTORY_LIMIT - 8 - now.events) / 3)));
  }
  let during: Promise<unknown> | undefined;
  for (let batch = 0; !(await current()).switched; batch++) {
    if (batch > 40) throw new Error('no continue-as-new after 160 padding signals');
    const signals = pad(4);
    if (batch === 0 && before) during = before();
    await signals;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { from, to: await runIdOf(handle), during: await during };
}

/**
 * The current run has nothing in flight: no workflow task, timer or activity open. A
 * resumed wait is then fully re-entered (what it shows is what it waits with).
 */
async function idle(h: Harness, handle: Pipeline): Promise<void> {
  const runId = await runIdOf(handle);
  await until('the new run is idle', async () => {
    const events = (await h.client.workflow.getHandle(handle.workflowId, runId).fetchHistory()).events ?? [];
    const open = new Set<string>();
    for (const e of events) {
      const t = e.eventType;
      if (t === EventType.EVENT_TYPE_TIMER_STARTED) open.add(`t${String(e.eventId)}`);
      if (t === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) open.add(`a${String(e.eventId)}`);
      const timer = e.timerFiredEventAttributes ?? e.timerCanceledEventAttributes;
      if (timer) open.delete(`t${String(timer.startedEventId)}`);
      const act =
        e.activityTaskCompletedEventAttributes ??
        e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes ??
        e.activityTaskCanceledEventAttributes;
      if (act) open.delete(`a${String(act.scheduledEventId)}`);
    }
    // The commands' events follow WorkflowTaskCompleted: look at the last workflow task event.
    const task = events.filter(
      (e) =>
        e.workflowTaskScheduledEventAttributes ||
        e.workflowTaskStartedEventAttributes ||
        e.workflowTaskCompletedEventAttributes ||
        e.workflowTaskFailedEventAttributes ||
        e.workflowTaskTimedOutEventAttributes,
    );
    const settled = task[task.length - 1]?.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED;
    return (open.size === 0 && settled) || undefined;
  });
}

interface Run {
  runId: string;
  status: string;
  input: PipelineInput;
  /** How many times this run scheduled a generation create activity. */
  creates: number;
}

/** Every run of the pipeline, first to last, followed through the histories' continue-as-new events. */
async function chainOf(h: Harness, handle: Pipeline): Promise<Run[]> {
  const runs: Run[] = [];
  for (let runId: string | undefined = handle.firstExecutionRunId; runId;) {
    const history = await h.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
    const events: temporal.api.history.v1.IHistoryEvent[] = history.events ?? [];
    const started = events[0].workflowExecutionStartedEventAttributes!;
    const input = JSON.parse(Buffer.from(started.input!.payloads![0].data!).toString('utf8')) as PipelineInput;
    const creates = events.filter(
      (e) =>
        e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        e.activityTaskScheduledEventAttributes?.activityType?.name === 'generationCreate',
    ).length;
    const last = events[events.length - 1];
    const next: string | undefined =
      last.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    runs.push({ runId, status: EventType[last.eventType!], input, creates });
    runId = next;
  }
  return runs;
}

/** The chain's runs: all continued as new but the last, which completed; listed by workflow id too. */
async function expectChain(h: Harness, handle: Pipeline, minRuns: number): Promise<Run[]> {
  const runs = await chainOf(h, handle);
  expect(runs.length).toBeGreaterThanOrEqual(minRuns);
  expect(runs.slice(0, -1).map((r) => r.status)).toEqual(
    runs.slice(0, -1).map(() => 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW'),
  );
  expect(runs[runs.length - 1].status).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  // Visibility lists the same runs (it may lag a little behind the histories).
  await until('visibility lists every run', async () => {
    const listed: string[] = [];
    for await (const wf of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) {
      listed.push(wf.runId);
    }
    return (
      listed.sort().join() ===
        runs
          .map((r) => r.runId)
          .sort()
          .join() || undefined
    );
  });
  // One generation create in the whole chain: no run after a switch created again.
  expect(runs.map((r) => r.creates).reduce((a, b) => a + b)).toBe(1);
  return runs;
}

/** Exactly one vendor task, the genuine one, recorded once, learned `via`. */
function expectOneTask(h: Harness, result: PipelineResult, taskId: string, via: string): void {
  const ofModel = h.emulator.inspect().generationTasks.filter((t) => t.model === MODEL);
  expect(ofModel.map((t) => t.id)).toEqual([taskId]);
  expect(result.generation?.taskId).toBe(taskId);
  expect(result.vendorTasks).toEqual([expect.objectContaining({ kind: 'generation', id: taskId, attempt: 1, via })]);
  expect(result.calls['generation.create']).toBe(1);
}

describe('continue-as-new during the waits of an ambiguous create', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      callbacks: true,
      emulator: { profile: { generationQueuedMs: 300, generationRunningMs: 1_000 } },
    });
  });
  afterAll(async () => h?.close());
  beforeEach(() => {
    h.emulator.reset();
    // The create's answer is lost after the task was created; the vendor's own callbacks too,
    // so only what the test sends reaches the pipeline.
    h.emulator.setFaults({
      'generation.create': { resetAfterCreate: { next: 1 } },
      'generation.callback': { callbackDrop: { probability: 1 } },
    });
  });

  /** The pipeline's genuine task at the vendor (what an operator finds in the console). */
  const genuineTask = (handle: Pipeline) =>
    until(
      'the vendor created the task',
      () =>
        h.emulator
          .inspect()
          .generationTasks.find((t) => t.callbackUrl?.includes(`/${encodeURIComponent(handle.workflowId)}/`))?.id,
    );
  const callbackUrl = (handle: Pipeline) =>
    buildCallbackUrl(h.receiver!.url, CALLBACK_SECRET, handle.workflowId, 'generation', 1, handle.firstExecutionRunId);

  test('operator wait: the new run still waits with the same step, attempt and offers; an Update sent as the history crosses the limit is answered and applied once', async () => {
    const handle = await h.start(generationOnly({ deadlines: { callbackGrace: '1s' } }));
    const first = await waitForStatus(handle, (s) => s.state === 'waiting-operator');
    const task = await genuineTask(handle);
    // A task id offered by a callback that fails the proof (another model): listed in the reason.
    const decoy = (await h.vendor.generation.create({ model: 'video-model-2', content: [{ type: 'text', text: 'd' }] }))
      .id;
    expect(await post(callbackUrl(handle), { id: decoy, status: 'queued' })).toBe(204);
    const offered = await waitForStatus(handle, (s) => Boolean(s.waiting?.reason.includes(`${decoy} (refused:`)));

    const { from, to } = await padUntilContinued(handle);
    expect(to).not.toBe(from);
    await idle(h, handle);
    // The new run shows the same wait: step, attempt, since, and the refused offer.
    const resumed = await waitForStatus(handle, (s) => s.state === 'waiting-operator');
    expect(resumed.waiting).toMatchObject({
      step: first.waiting!.step,
      attempt: first.waiting!.attempt,
      since: first.waiting!.since,
    });
    expect(resumed.waiting!.reason).toContain(`${decoy} (refused: `);
    expect(resumed.waiting!.reason).toBe(offered.waiting!.reason);

    // Again, with the operator's Update sent as the history crosses the limit: whether the
    // old run or the new one takes it, it is answered and applied.
    // (The library sends it again if the server aborted it with the workflow task it arrived in.)
    const again = await padUntilContinued(handle, () => resolveCreate(h.client, handle.workflowId, { taskId: task }));
    expect(again.during).toEqual({ stage: 'generation', step: 'generation', accepted: { taskId: task } });
    const result = await handle.result();
    expectOneTask(h, result, task, 'operator');
    const status = await handle.query(statusQuery);
    expect(status.state).toBe('completed');
    expect(status.waiting).toBeUndefined();
    const runs = await expectChain(h, handle, 2);
    // The run after the first switch was handed the wait's attempt as still ambiguous.
    expect(runs[1].input.resume?.runtime.ambiguous).toEqual({ generation: 1 });
  });

  test('operator wait: a callback proving the task arrives just after the switch, with an Update: the wait ends once, with that task', async () => {
    // The grace is long enough that the callback comes while the new run resumes its wait.
    const handle = await h.start(generationOnly({ deadlines: { callbackGrace: '5s' } }));
    await waitForStatus(handle, (s) => s.state === 'waiting-operator');
    const task = await genuineTask(handle);
    await padUntilContinued(handle);

    // The vendor's genuine callback (proven through the emulator) and the operator's Update, together.
    const [posted, update] = await Promise.all([
      post(callbackUrl(handle), { id: task, status: 'queued' }),
      resolveCreate(h.client, handle.workflowId, { taskId: task }).catch((e: Error) => e.cause ?? e),
    ]);
    expect(posted).toBe(204);
    // Answered either way: accepted (it came first), or refused because the callback had already
    // ended the wait, or ended it while the operator's id was being proven.
    if (update instanceof Error) {
      expect(update.message).toMatch(/is not waiting for an operator decision|was decided while task .* was checked/);
    } else expect(update).toEqual({ stage: 'generation', step: 'generation', accepted: { taskId: task } });

    // Once the task is known, the pipeline no longer shows an operator wait.
    const known = await waitForStatus(handle, (s) => s.vendorTasks.length > 0);
    expect(known.waiting).toBeUndefined();
    expect(known.state).not.toBe('waiting-operator');
    const result = await handle.result();
    expectOneTask(h, result, task, update instanceof Error ? 'callback' : 'operator');
    await expectChain(h, handle, 2);
  });

  test('reconcile wait: continued as new during the callback grace, a callback naming the task as it switches: the same task, no second create', async () => {
    const handle = await h.start(generationOnly({ deadlines: { callbackGrace: '10m' } }));
    const task = await genuineTask(handle);
    // The create's failure is in history and the grace timer runs: the pipeline is reconciling.
    await until('the grace timer started', async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      return events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED) || undefined;
    });
    expect((await handle.query(statusQuery)).vendorTasks).toEqual([]);

    const { from, to } = await padUntilContinued(handle, () =>
      post(callbackUrl(handle), { id: task, status: 'queued' }),
    );
    expect(to).not.toBe(from);
    const result = await handle.result();
    expectOneTask(h, result, task, 'callback');
    const runs = await expectChain(h, handle, 2);
    // The run after the switch was handed the attempt whose outcome was unknown.
    expect(runs[1].input.resume?.runtime.ambiguous).toEqual({ generation: 1 });
    expect(runs[1].input.resume?.runtime.book?.attempts.map((a) => [a.step, a.attempt])).toEqual([['generation', 1]]);
  });

  test('reconcile wait: continued as new twice before the callback arrives; the new run still reconciles to the same task', async () => {
    const handle = await h.start(generationOnly({ deadlines: { callbackGrace: '10m' } }));
    const task = await genuineTask(handle);
    await until('the grace timer started', async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      return events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED) || undefined;
    });
    await padUntilContinued(handle);
    await padUntilContinued(handle);
    expect((await handle.query(statusQuery)).vendorTasks).toEqual([]);
    expect(await post(callbackUrl(handle), { id: task, status: 'queued' })).toBe(204);
    const result = await handle.result();
    expectOneTask(h, result, task, 'callback');
    const runs = await expectChain(h, handle, 3);
    for (const r of runs.slice(1)) expect(r.input.resume?.runtime.ambiguous).toEqual({ generation: 1 });
  });
});
