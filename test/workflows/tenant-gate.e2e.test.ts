/**
 * Concurrency limits per tenant (docs/tenants.md, "Concurrency limits") on the real dev
 * server with the emulator: the tenant's gate workflow admits at most `limit` pipelines,
 * FIFO within a priority, and every way a pipeline ends gives its slot back. The limit is
 * checked on the gate's recorded grants and releases (tools/bench/gate-timeline.ts), never by
 * sampling, and every vendor create is checked to fall inside its pipeline's holding.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { parseTenantsConfig } from '../../src/tenants/config';
import {
  resolveCreateUpdate,
  statusQuery,
  vendorCallbackSignal,
  type PipelineStatus,
} from '../../src/contract/messages';
import { gateStateQuery, gateWorkflowId, GATE_SWEEP_MS, type GateState } from '../../src/contract/tenant-gate';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import type { videoPipeline } from '../../src/workflows';
import { readGateTimeline, heldAt, type GateTimeline } from '../../tools/bench/gate-timeline';
import { expectReplays, spawnWorker, startHarness, waitForStatus, type Harness } from '../support/harness';
import { until } from '../support/poll';

jest.setTimeout(240_000);
type Pipeline = WorkflowHandle<typeof videoPipeline>;

const run = randomUUID().slice(0, 6);
const T = {
  fifo: `fifo-${run}`,
  ends: `ends-${run}`,
  can: `can-${run}`,
  gateCan: `gcan-${run}`,
  kill: `kill-${run}`,
  op: `op-${run}`,
};
const tenants = parseTenantsConfig({
  defaults: { maxPriority: 'interactive', concurrency: 1 },
  tenants: {
    [T.fifo]: { concurrency: 2 },
    [T.ends]: {},
    [T.can]: {},
    [T.gateCan]: { concurrency: 2 },
    [T.kill]: {},
    [T.op]: {},
  },
});

const pipeline = (tenant: string, options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text: `gate ${tenant}` }] },
  options: { archive: false, tenant, ...options },
});

const gateState = (h: Harness, tenant: string): Promise<GateState> =>
  h.client.workflow.getHandle(gateWorkflowId(tenant)).query(gateStateQuery);

const currentDetails = async (p: Pipeline) =>
  (await p.query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;

const holding = (p: Pipeline) => waitForStatus(p, (s) => s.slot?.state === 'held');

/** Every vendor task a pipeline knows was created (emulator time) while it held its slot. */
function expectCreatesInside(h: Harness, t: GateTimeline, statuses: PipelineStatus[]): number {
  const snap = h.emulator.inspect();
  const created = new Map([
    ...snap.generationTasks.map((r) => [r.id, Date.parse(r.createdAt)] as const),
    ...snap.eraseTasks.map((r) => [r.taskId, Date.parse(r.createdAt)] as const),
  ]);
  let checked = 0;
  for (const s of statuses)
    for (const task of s.vendorTasks) {
      const at = created.get(task.id);
      expect(at).toBeDefined();
      expect({ pipeline: s.pipelineId, task: task.id, held: heldAt(t, s.pipelineId, at!) !== undefined }).toEqual({
        pipeline: s.pipelineId,
        task: task.id,
        held: true,
      });
      checked++;
    }
  return checked;
}

describe('tenant concurrency limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tenants, emulator: { profile: { generationRunningMs: 4_000 } } });
  });
  afterAll(async () => {
    for (const tenant of Object.values(T))
      await h?.client.workflow
        .getHandle(gateWorkflowId(tenant))
        .terminate('test over')
        .catch(() => undefined);
    await h?.close();
  });

  test('at most N hold a slot; the rest show queued and are granted by priority, then start time', async () => {
    const first = [await h.start(pipeline(T.fifo)), await h.start(pipeline(T.fifo))];
    await Promise.all(first.map(holding));
    const later: Pipeline[] = [];
    for (const priority of ['batch', 'normal', 'interactive', 'normal'] as const)
      later.push(await h.start(pipeline(T.fifo, { priority })));
    await until('four queued at the gate', async () => (await gateState(h, T.fifo)).queue.length === 4);
    const state = await gateState(h, T.fifo);
    expect(state.limit).toBe(2);
    expect(state.holders.map((x) => x.pipelineId).sort()).toEqual(first.map((p) => p.workflowId).sort());
    const [batch, normal1, interactive, normal2] = later.map((p) => p.workflowId);
    expect(state.queue.map((q) => q.pipelineId)).toEqual([interactive, normal1, normal2, batch]);
    // What the user sees while queued: the state, the details and ReelflowStatus.
    const queued = await later[0].query(statusQuery);
    expect(queued.state).toBe('queued');
    expect(queued.slot).toMatchObject({ state: 'queued', limit: 2 });
    expect(queued.vendorTasks).toEqual([]);
    const d = await later[0].describe();
    expect(d.searchAttributes.ReelflowStatus).toEqual(['queued']);

    await Promise.all([...first, ...later].map((p) => p.result()));
    const t = await readGateTimeline(h.client, T.fifo);
    expect(t.maxHolders).toBe(2);
    expect(t.grantOrder).toEqual([...t.grantOrder.slice(0, 2), interactive, normal1, normal2, batch]);
    expect(t.intervals).toHaveLength(6);
    expect(t.intervals.every((i) => i.released === 'released')).toBe(true);
    const statuses = await Promise.all([...first, ...later].map((p) => p.query(statusQuery)));
    expect(statuses.every((s) => s.state === 'completed' && s.slot?.state === 'released')).toBe(true);
    expect(expectCreatesInside(h, t, statuses)).toBe(6);
    expect((await gateState(h, T.fifo)).holders).toEqual([]);
  });

  test('a failed, a cancelled and a terminated holder give the slot back; cancel while queued leaves at once', async () => {
    const EventType = temporal.api.enums.v1.EventType;
    h.emulator.setFaults({ 'generation.create': { expire: { next: 1 } } });
    const failing = await h.start(pipeline(T.ends));
    await holding(failing);
    const cancelled = await h.start(pipeline(T.ends));
    const leaving = await h.start(pipeline(T.ends));
    await until('two queued', async () => (await gateState(h, T.ends)).queue.length === 2);
    // Cancel while queued (the second in line): out of the queue at once, never granted.
    const queuedOne = leaving;
    await queuedOne.cancel();
    await until('the cancelled one left the queue', async () => (await gateState(h, T.ends)).queue.length === 1);
    await expect(queuedOne.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const other = cancelled;

    await expect(failing.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    await holding(other);
    await other.cancel();
    await expect(other.result()).rejects.toBeInstanceOf(WorkflowFailedError);

    // `next` starts once `terminated` holds: with the slot free, whichever ask reaches the gate
    // first is granted, so starting both at once could make `next` the holder.
    const terminated = await h.start(pipeline(T.ends));
    await holding(terminated);
    const next = await h.start(pipeline(T.ends));
    await waitForStatus(next, (s) => s.state === 'queued');
    await terminated.terminate('test: no workflow code runs');
    const history = await terminated.fetchHistory();
    const end = history.events!.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED)!;
    await next.result();

    const t = await readGateTimeline(h.client, T.ends);
    expect(t.maxHolders).toBe(1);
    const of = (p: Pipeline) => t.intervals.filter((i) => i.pipelineId === p.workflowId);
    expect(of(queuedOne)).toEqual([]);
    expect(of(failing).map((i) => i.released)).toEqual(['released']);
    expect(of(other).map((i) => i.released)).toEqual(['released']);
    expect(of(terminated).map((i) => i.released)).toEqual(['swept']);
    expect(of(next).map((i) => i.released)).toEqual(['released']);
    // The bound (docs/tenants.md): a sweep period plus one sweep activity, by the server's clock.
    const endMs = Number(end.eventTime!.seconds) * 1000;
    expect(of(terminated)[0].releasedAtMs! - endMs).toBeLessThanOrEqual(GATE_SWEEP_MS + 20_000);
    const statuses = await Promise.all([failing, other, next].map((p) => p.query(statusQuery)));
    expect(statuses.map((s) => s.state)).toEqual(['failed', 'cancelled', 'completed']);
    expectCreatesInside(h, t, statuses);
  });

  test('a pipeline waiting for an operator keeps its slot and shows it; the next one stays queued', async () => {
    h.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
    const asking = await h.start(pipeline(T.op));
    const waitingStatus = await waitForStatus(asking, (s) => s.state === 'waiting-operator');
    expect(waitingStatus.slot).toMatchObject({ state: 'held', slot: 1, limit: 1 });
    expect(await currentDetails(asking)).toContain('holds slot 1 of 1');
    const next = await h.start(pipeline(T.op));
    await waitForStatus(next, (s) => s.state === 'queued');
    expect(await currentDetails(next)).toContain('queued for a slot (limit 1)');
    expect((await gateState(h, T.op)).holders.map((x) => x.pipelineId)).toEqual([asking.workflowId]);
    const [task] = h.emulator.inspect().generationTasks.slice(-1);
    await asking.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: task.id } }] });
    await Promise.all([asking.result(), next.result()]);
    const t = await readGateTimeline(h.client, T.op);
    expect(t.grantOrder).toEqual([asking.workflowId, next.workflowId]);
    expect(t.maxHolders).toBe(1);
  });
});

/**
 * Signals no step listens to (one event each) until the pipeline's current run continued as
 * new; the run switches at its next checkpoint (after its create has answered), so it pads
 * only while short of the limit and otherwise waits.
 */
async function padUntilContinued(p: Pipeline, limit: number): Promise<void> {
  const from = (await p.describe()).runId;
  await until(
    'the pipeline to continue as new',
    async () => {
      const d = await p.describe();
      if (d.runId !== from || d.status.name !== 'RUNNING') return true;
      if (Number(d.historyLength) <= limit)
        await Promise.allSettled(
          Array.from({ length: 5 }, () => p.signal(vendorCallbackSignal, { step: 'padding', attempt: 0 })),
        );
      return false;
    },
    { timeoutMs: 120_000, everyMs: 200 },
  );
}

describe('continue-as-new keeps every slot', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tenants, callbacks: true, emulator: { profile: { generationRunningMs: 3_000 } } });
  });
  afterAll(async () => {
    for (const tenant of [T.can, T.gateCan])
      await h?.client.workflow
        .getHandle(gateWorkflowId(tenant))
        .terminate('test over')
        .catch(() => undefined);
    await h?.close();
  });

  test('a pipeline continued as new while holding keeps its one slot and asks no second time', async () => {
    h.emulator.setFaults({ 'generation.create': { delayAfterCreate: { next: 1, ms: 8_000 } } });
    const p = await h.start(pipeline(T.can, { callbacks: true, historyEventsBeforeContinueAsNew: 50 }));
    await holding(p);
    const waiting = await h.start(pipeline(T.can));
    await padUntilContinued(p, 50);
    expect((await p.describe()).runId).not.toBe(p.firstExecutionRunId);
    const continued = await p.query(statusQuery);
    expect(continued.slot).toMatchObject({ state: 'held', slot: 1, limit: 1 });
    await p.result();
    await waiting.result();
    const t = await readGateTimeline(h.client, T.can);
    expect(t.intervals.map((i) => [i.pipelineId, i.released])).toEqual([
      [p.workflowId, 'released'],
      [waiting.workflowId, 'released'],
    ]);
    expect(t.maxHolders).toBe(1);
  });

  test('the gate continues as new with its holders and queue: no slot lost or doubled', async () => {
    // Started by hand with a small history limit; the pipelines' asks signal this one.
    await h.client.workflow.start('tenantGate', {
      workflowId: gateWorkflowId(T.gateCan),
      taskQueue: h.taskQueue,
      args: [{ historyLimit: 40 }],
    });
    const ps: Pipeline[] = [];
    for (let i = 0; i < 8; i++) ps.push(await h.start(pipeline(T.gateCan)));
    const statuses = await Promise.all(ps.map(async (p) => (await p.result(), p.query(statusQuery))));
    const t = await readGateTimeline(h.client, T.gateCan);
    expect(t.runs).toBeGreaterThan(1);
    expect(t.maxHolders).toBe(2);
    expect(t.intervals.map((i) => i.pipelineId).sort()).toEqual(ps.map((p) => p.workflowId).sort());
    expect(t.intervals.every((i) => i.released === 'released')).toBe(true);
    expect(expectCreatesInside(h, t, statuses)).toBe(8);
    expect(await gateState(h, T.gateCan)).toMatchObject({ holders: [], queue: [] });
  });
});

describe('worker SIGKILL', () => {
  let h: Harness;
  const procs: ChildProcess[] = [];
  beforeAll(async () => {
    // Long enough a generation that the kill finds the holder polling.
    h = await startHarness({ inProcessWorkers: false, emulator: { profile: { generationRunningMs: 10_000 } } });
  });
  afterAll(async () => {
    procs.forEach((p) => p.exitCode === null && p.kill('SIGKILL'));
    await h?.client.workflow
      .getHandle(gateWorkflowId(T.kill))
      .terminate('test over')
      .catch(() => undefined);
    await h?.close();
  });

  // After the kill the pipelines' next tasks time out; their histories must replay from
  // scratch (docs/architecture.md, "Workflow time after a worker dies").
  test('the only worker killed while one pipeline holds and two queue: none lost, none doubled', async () => {
    const file = path.join(h.archiveRoot, 'tenants.json');
    writeFileSync(file, JSON.stringify({ defaults: { concurrency: 1 }, tenants: { [T.kill]: {} } }));
    const worker = (name: string) => {
      const p = spawnWorker(h, name, { REELFLOW_TENANTS_FILE: file });
      procs.push(p);
      return p;
    };
    const first = worker('worker-1');
    const ps: Pipeline[] = [];
    for (let i = 0; i < 3; i++) ps.push(await h.start(pipeline(T.kill)));
    // The kill lands while the holder polls its task: a kill during its create would leave the
    // outcome unknown, and with callbacks off a generation's policy asks an operator.
    await until(
      'one holder with its task created, two queued',
      async () => {
        const s = await gateState(h, T.kill).catch(() => undefined);
        if (s?.holders.length !== 1 || s.queue.length !== 2) return false;
        const status = await h.client.workflow.getHandle(s.holders[0].pipelineId).query(statusQuery);
        return status.vendorTasks.length === 1 && status.state === 'running';
      },
      { timeoutMs: 90_000, everyMs: 200 },
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    worker('worker-2');
    // The holder's next task comes back after the sticky queue's timeout (10 s); on a busy CI
    // machine the rest can take minutes, so the wait names where each pipeline stands.
    let seen = '';
    await until(
      () => `every pipeline to close; last seen: ${seen}`,
      async () => {
        const now = await Promise.all(ps.map((p) => p.query(statusQuery)));
        seen = now.map((s) => `${s.pipelineId} ${s.state} slot=${s.slot?.state ?? '-'}`).join('; ');
        return (await Promise.all(ps.map((p) => p.describe()))).every((d) => d.status.name === 'COMPLETED');
      },
      { timeoutMs: 400_000, everyMs: 1_000 },
    );
    const statuses = await Promise.all(ps.map(async (p) => (await p.result(), p.query(statusQuery))));
    const t = await readGateTimeline(h.client, T.kill);
    expect(t.maxHolders).toBe(1);
    expect(t.intervals.map((i) => i.pipelineId).sort()).toEqual(ps.map((p) => p.workflowId).sort());
    expect(t.intervals.every((i) => i.released === 'released')).toBe(true);
    expect(expectCreatesInside(h, t, statuses)).toBe(3);
    for (const p of ps) await expectReplays(p);
  }, 600_000);
});
