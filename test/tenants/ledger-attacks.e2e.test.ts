/**
 * Money that cannot leak (docs/security.md, "Ledger messages"; docs/tenants.md, "Budgets"):
 * what an operator's mistake or a namespace user's forged message does to a tenant's ledger,
 * on the real dev server with a real worker and the emulator as vendor. Each test has its
 * own tenant, so its ledger is its own.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import {
  LEDGER_SWEEP_MS,
  LEDGER_WORKFLOW,
  MAX_ASKS_PER_SIGNAL,
  ledgerId,
  ledgerQuery,
  periodOf,
  type LedgerView,
} from '../../src/contract/ledger';
import { resolveCreateUpdate } from '../../src/contract/messages';
import { TENANT } from '../../src/contract/search-attributes';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { createLedgerActivities, type SpendRead } from '../../src/activities/ledger';
import { setTenantBudget, tenantUsage } from '../../src/starters/client/ledger';
import { parseTenantsConfig } from '../../src/tenants/config';
import { rejection, startHarness, waitForStatus, type Harness } from '../support/harness';
import { until, type PollOptions } from '../support/poll';
import { ledgerMessagesOf } from '../../tools/bench/history-counts';

const quick = { generationQueuedMs: 300, generationRunningMs: 600, eraseInProgressMs: 300 };
const tag = randomUUID().slice(0, 6);
const T = {
  reuse: `reuse-${tag}`,
  raw: `raw-${tag}`,
  forged: `forged-${tag}`,
  other: `other-${tag}`,
  override: `override-${tag}`,
  late: `late-${tag}`,
  swept: `swept-${tag}`,
  batched: `batched-${tag}`,
  deaf: `deaf-${tag}`,
  listed: `listed-${tag}`,
};
const oneCny = { budget: { period: 'day', amount: '1' } };
const config = parseTenantsConfig({
  prices: { generation: '1', erase: '0.000015' },
  tenants: {
    [T.reuse]: oneCny,
    [T.raw]: oneCny,
    [T.forged]: { budget: { period: 'day', amount: '3' } },
    [T.other]: { budget: { period: 'day', amount: '100' } },
    [T.override]: oneCny,
    [T.late]: { budget: { period: 'day', amount: '100' } },
    [T.swept]: { budget: { period: 'day', amount: '100' } },
    // A concurrency limit: its slot comes first, so its pipelines ask by their own local activity.
    [T.batched]: { budget: { period: 'day', amount: '100' }, concurrency: 10 },
    [T.deaf]: { budget: { period: 'day', amount: '100' } },
    [T.listed]: { budget: { period: 'day', amount: '100' } },
  },
});

const generationOnly = (tenant: string, options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'ledger attack test' }] },
  options: { archive: false, tenant, overBudget: 'fail', ...options },
});

describe('a ledger under operator mistakes and forged messages', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { profile: quick }, tenants: config });
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.emulator.reset());

  const idOf = (tenant: string) => ledgerId(tenant, periodOf(Date.now(), 'day', 0));
  const ledgerUntil = (tenant: string, pred: (v: LedgerView) => boolean, options?: PollOptions) => {
    let last: LedgerView | undefined;
    return until(
      () => `ledger of ${tenant}; last ${JSON.stringify(last)}`,
      async () => {
        last = await h.client.workflow
          .getHandle(idOf(tenant))
          .query(ledgerQuery)
          .catch(() => undefined);
        return last && pred(last) && last;
      },
      options,
    );
  };
  const budgetExceeded = async (p: Promise<unknown>) => {
    const err = await rejection(p, WorkflowFailedError);
    const cause = err.cause?.cause as ApplicationFailure;
    expect(cause.type).toBe('BudgetExceeded');
  };

  test('a second pipeline under a reused workflow id is a new pipeline: it is counted, and refused past the budget', async () => {
    const id = `reuse-${randomUUID().slice(0, 8)}`;
    await (await h.start(generationOnly(T.reuse), id)).result();
    await ledgerUntil(T.reuse, (v) => v.spent === 1_000_000);
    await budgetExceeded(h.start(generationOnly(T.reuse), id).then((p) => p.result()));
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);
    expect(await ledgerUntil(T.reuse, (v) => v.reserved === 0)).toMatchObject({ spent: 1_000_000, remaining: 0 });
  });

  test("a settle read once the pipeline's workflow id holds a newer pipeline still finds the ended one's record", async () => {
    const id = `late-${randomUUID().slice(0, 8)}`;
    const ended = await h.start(generationOnly(T.late), id);
    await ended.result();
    // The same id now holds a running pipeline, waiting for an operator: a newer chain.
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const newer = await h.start(generationOnly(T.late), id);
    await waitForStatus(newer, (s) => s.state === 'waiting-operator');
    const env = new MockActivityEnvironment(undefined, { client: h.client });
    const { readSpendRecords } = createLedgerActivities(config);
    const reads: SpendRead[] = await env.run(readSpendRecords, {
      ledgerId: idOf(T.late),
      chains: [{ pipelineId: id, firstRunId: ended.firstExecutionRunId }],
    });
    await newer.terminate('test over');
    expect(reads[0]).toMatchObject({ ended: true, seen: true, record: { used: { generation: 1 } } });
  });

  test("a terminated pipeline's reservation is swept: what it held becomes unresolved, and nothing stays reserved", async () => {
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const p = await h.start(generationOnly(T.swept));
    await waitForStatus(p, (s) => s.state === 'waiting-operator');
    expect(await ledgerUntil(T.swept, (v) => v.reserved > 0)).toMatchObject({ reserved: 1_000_000 });
    await p.terminate('an operator gives up on it');
    // A sweep every LEDGER_SWEEP_MS settles a chain reserved and closed at least that long ago.
    const after = await ledgerUntil(T.swept, (v) => v.reserved === 0, { timeoutMs: 4 * LEDGER_SWEEP_MS });
    expect(after.unresolved).toEqual([
      expect.objectContaining({ key: `${p.workflowId}/${p.firstExecutionRunId}`, kind: 'generation', count: 1 }),
    ]);
    expect(after).toMatchObject({ spent: 0, refused: 0 });
  }, 180_000);

  test('a ledger raw-started with a forged budget in its input takes its terms from the worker file alone', async () => {
    await h.client.workflow.start(LEDGER_WORKFLOW, {
      workflowId: idOf(T.raw),
      taskQueue: h.taskQueue,
      args: [
        {
          tenant: T.raw,
          period: 'x',
          currency: 'CNY',
          utcOffsetMinutes: 0,
          budget: 1e12,
          configured: true,
          carry: { override: 1e12 },
        },
      ],
    });
    await h.run(generationOnly(T.raw));
    await budgetExceeded(h.start(generationOnly(T.raw)).then((p) => p.result()));
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);
    expect(await ledgerUntil(T.raw, (v) => v.spent === 1_000_000)).toMatchObject({ budget: 1_000_000, remaining: 0 });
  });

  test('forged reserves and settles are dropped and counted, never throw, and create no budget', async () => {
    const ledger = h.client.workflow.getHandle(idOf(T.forged));
    const first = await h.start(generationOnly(T.forged));
    await first.result();
    const firstChain = { pipelineId: first.workflowId, firstRunId: first.firstExecutionRunId };
    const settled = await ledgerUntil(T.forged, (v) => v.spent === 1_000_000 && v.reserved === 0);
    // A running pipeline of another tenant, waiting for an operator: a real chain, a foreign one.
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const foreign = await h.start(generationOnly(T.other));
    await waitForStatus(foreign, (s) => s.state === 'waiting-operator');
    const foreignChain = { pipelineId: foreign.workflowId, firstRunId: foreign.firstExecutionRunId };
    const forged: [string, unknown][] = [
      // The old shape, with a negative amount: once it raised the remaining budget.
      [
        'reserveSpendAsk',
        {
          key: 'x/generation/1',
          amount: -1_050_000,
          kind: 'generation',
          stage: 'generation',
          pipelineId: 'x',
          wait: false,
        },
      ],
      [
        'reserveSpendAsk',
        {
          chain: { pipelineId: 'nobody', firstRunId: 'none' },
          key: 'plan',
          creates: [{ kind: 'generation', count: 1 }],
          wait: false,
          answer: true,
          ask: 1,
        },
      ],
      // A foreign chain: a running pipeline, but of another tenant.
      [
        'reserveSpendAsk',
        {
          chain: foreignChain,
          key: 'plan',
          creates: [{ kind: 'generation', count: 2 }],
          wait: false,
          answer: true,
          ask: 9,
        },
      ],
      [
        'reserveSpendAsk',
        {
          chain: foreignChain,
          key: 'plan',
          creates: [{ kind: 'generation', count: -3 }],
          wait: false,
          answer: true,
          ask: 9,
        },
      ],
      // A settle of a chain the ledger never saw, and one replayed for a chain already settled.
      ['settleSpend', { chain: { pipelineId: 'nobody', firstRunId: 'none' } }],
      ['settleSpend', { chain: firstChain }],
      ['settleSpend', { chain: { ...firstChain, firstRunId: 'not-its-run' } }],
      ['settleSpend', { key: 'x/generation/1', outcome: 'release' }],
      ['settleSpend', null],
      ['reserveSpendAsk', 'a string'],
    ];
    // Batches, as a worker sends its asks: a non-list is one refusal, each ask of a list is judged
    // alone, and a list past the bound is cut there, with one refusal more.
    const nobodyAsk = forged[1][1];
    const batches: [unknown, number][] = [
      ['not a list', 1],
      [[nobodyAsk, 'a string', { ...(nobodyAsk as object), creates: [{ kind: 'generation', count: -5 }] }], 3],
      [Array.from({ length: MAX_ASKS_PER_SIGNAL + 5 }, () => null), MAX_ASKS_PER_SIGNAL + 1],
    ];
    for (const [name, payload] of forged) await ledger.signal(name, payload);
    for (const [batch] of batches) await ledger.signal('reserveSpendAsks', batch);
    const refusals = forged.length + batches.reduce((n, [, refused]) => n + refused, 0);
    const after = await ledgerUntil(T.forged, (v) => v.refused >= refusals);
    expect(after).toMatchObject({ spent: settled.spent, reserved: 0, remaining: 2_000_000, refused: refusals });
    // The ledger's workflow task never failed: it still answers a real pipeline at once.
    await h.run(generationOnly(T.forged));
    expect(await ledgerUntil(T.forged, (v) => v.spent === 2_000_000 && v.reserved === 0)).toMatchObject({
      remaining: 1_000_000,
    });
    const events = (await ledger.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    await foreign.executeUpdate(resolveCreateUpdate, { args: [{ decision: { abandon: true } }] });
    await rejection(foreign.result(), WorkflowFailedError);
  });

  test('a forged settle of a running pipeline releases nothing; its own settle still counts', async () => {
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const p = await h.start(generationOnly(T.other));
    await waitForStatus(p, (s) => s.state === 'waiting-operator');
    // Its reservation alone: an earlier test's pipeline of this tenant has been settled.
    const before = await ledgerUntil(T.other, (v) => v.reserved === 1_000_000);
    await h.client.workflow
      .getHandle(idOf(T.other))
      .signal('settleSpend', { chain: { pipelineId: p.workflowId, firstRunId: p.firstExecutionRunId } });
    const after = await ledgerUntil(T.other, (v) => v.refused > before.refused);
    expect(after.reserved).toBe(before.reserved);
    await p.executeUpdate(resolveCreateUpdate, { args: [{ decision: { resubmit: true } }] });
    await p.result();
    await ledgerUntil(
      T.other,
      (v) => v.reserved === before.reserved - 1_000_000 && v.spent === before.spent + 1_000_000,
    );
  });

  test('a pipeline that ended while its ledger had no open run (terminated) is counted once `reelflow usage` opens the ledger again', async () => {
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const p = await h.start(generationOnly(T.other));
    await waitForStatus(p, (s) => s.state === 'waiting-operator');
    const before = await ledgerUntil(T.other, (v) => v.reserved === 1_000_000);
    await h.client.workflow.getHandle(idOf(T.other)).terminate('test: an operator terminates the ledger');
    await p.executeUpdate(resolveCreateUpdate, { args: [{ decision: { resubmit: true } }] });
    await p.result();
    // The read finds the last run terminated with a reservation open, and starts the next run, which finds p closed.
    const [shown] = await tenantUsage(h.client, { tenant: T.other });
    expect(shown.reserved).toBe(before.reserved);
    const after = await ledgerUntil(T.other, (v) => v.spent === before.spent + 1_000_000);
    expect(after.reserved).toBe(before.reserved - 1_000_000);
  });

  test('a new pipeline asks in its definition check and ends without a settle: its ledger lists it closed', async () => {
    const p = await h.start(generationOnly(T.listed));
    await p.result();
    const view = await ledgerUntil(T.listed, (v) => v.spent === 1_000_000);
    expect(view.reserved).toBe(0);
    // No askSpend, no answer signal (its create read the grant) and no settleSpend in the pipeline.
    expect(ledgerMessagesOf((await p.fetchHistory()).events ?? [])).toEqual({ asks: 0, answers: 0, settles: 0 });
    const ledgerEvents = (await h.client.workflow.getHandle(idOf(T.listed)).fetchHistory()).events ?? [];
    const signals = ledgerEvents.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
    expect(signals).toEqual(['reserveSpendAsks']);
    const activities = ledgerEvents.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toContain('listClosedSpenders');
    expect(activities).not.toContain('readSpendRecords'); // not settled by a sweep, nor by a settle hint
  });

  test('a ledger answers asks made by signal by one activity per batch and issues no signal command of its own', async () => {
    await Promise.all([1, 2, 3].map(() => h.run(generationOnly(T.batched))));
    await ledgerUntil(T.batched, (v) => v.spent === 3_000_000 && v.reserved === 0);
    const events = (await h.client.workflow.getHandle(idOf(T.batched)).fetchHistory()).events ?? [];
    const activities = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toContain('tellSpenders');
    expect(events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
  });

  test('a plan grant no ledger answers: the create sends nothing and the pipeline asks by signal; an answer for another chain is not taken, its own is', async () => {
    // The ledger id started on a queue no worker polls: the pipeline's asks reach it and are never answered.
    const deaf = await h.client.workflow.start(LEDGER_WORKFLOW, {
      workflowId: idOf(T.deaf),
      taskQueue: `nobody-${tag}`,
      args: [],
    });
    const p = await h.start(generationOnly(T.deaf));
    const historyOf = async () => (await p.fetchHistory()).events ?? [];
    // The check's ask (pulled), then, once the create found no answer within its 20 s, the pipeline's own.
    await until(
      () => `two asks of ${p.workflowId} at the deaf ledger`,
      async () =>
        ((await deaf.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length ===
        2,
      { timeoutMs: 60_000 },
    );
    const failed = (await historyOf()).flatMap((e) => e.activityTaskFailedEventAttributes?.failure ?? []);
    expect(failed).toEqual([
      expect.objectContaining({ applicationFailureInfo: expect.objectContaining({ type: 'SpendNotGranted' }) }),
    ]);
    expect(h.emulator.inspect().generationTasks).toHaveLength(0);
    const answer = { key: 'plan', ask: 2, granted: true, committed: 1_000_000, amount: 1_000_000 };
    await p.signal('spendAnswered', { ...answer, firstRunId: `${p.firstExecutionRunId}-earlier` });
    // The task that took the signal has completed: had it taken the answer, it would have scheduled the create.
    const afterSignal = await until(
      () => `a completed workflow task after the forged answer to ${p.workflowId}`,
      async () => {
        const events = await historyOf();
        const at = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'spendAnswered');
        const done = at >= 0 && events.slice(at).some((e) => e.workflowTaskCompletedEventAttributes);
        return done && events.slice(at);
      },
    );
    expect(afterSignal.filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
    expect(h.emulator.inspect().generationTasks).toHaveLength(0);
    await p.signal('spendAnswered', { ...answer, firstRunId: p.firstExecutionRunId });
    await p.result();
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);
    await deaf.terminate('test: the deaf ledger is done');
  });

  test('a sender is checked by its tenant attribute, else by its status; a workflow no worker runs is unknown, never a retry loop', async () => {
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const p = await h.start(generationOnly(T.other));
    await waitForStatus(p, (s) => s.state === 'waiting-operator');
    await until('the tenant attribute its runtime upserts', async () => {
      return (await p.describe()).typedSearchAttributes.get(TENANT) === T.other;
    });
    // The pipeline's type on a queue no worker polls, its attribute naming the tenant: it never answers a query.
    const fake = await h.client.workflow.start('videoPipeline', {
      taskQueue: `nobody-${tag}`,
      workflowId: `fake-pipeline-${tag}`,
      args: [{ definition: generationOnly(T.other) }],
      typedSearchAttributes: [{ key: TENANT, value: T.other }],
    });
    const env = new MockActivityEnvironment({ taskQueue: h.taskQueue }, { client: h.client });
    const { verifySpendSenders } = createLedgerActivities(config);
    const chainOf = (w: { workflowId: string; firstExecutionRunId: string }) => ({
      pipelineId: w.workflowId,
      firstRunId: w.firstExecutionRunId,
    });
    const check = (tenant: string, chains: ReturnType<typeof chainOf>[]) =>
      env.run(verifySpendSenders, { tenant, ledgerId: idOf(tenant), chains });
    const own = await check(T.other, [chainOf(p), chainOf(fake)]);
    const foreign = await check(T.forged, [chainOf(p)]);
    await fake.terminate('test over');
    await p.executeUpdate(resolveCreateUpdate, { args: [{ decision: { abandon: true } }] });
    await rejection(p.result(), WorkflowFailedError);
    expect(own).toEqual([true, null]);
    expect(foreign).toEqual([false]);
  });

  test('`budget set` survives a terminate of the ledger, as spend does', async () => {
    await setTenantBudget(h.client, config, { tenant: T.override, amount: 2_000_000, taskQueue: h.taskQueue });
    await h.run(generationOnly(T.override));
    await ledgerUntil(T.override, (v) => v.spent === 1_000_000);
    await h.client.workflow.getHandle(idOf(T.override)).terminate('test: an operator terminates the ledger');
    await h.run(generationOnly(T.override));
    await budgetExceeded(h.start(generationOnly(T.override)).then((p) => p.result()));
    expect(await ledgerUntil(T.override, (v) => v.spent === 2_000_000)).toMatchObject({
      budget: 2_000_000,
      override: 2_000_000,
      remaining: 0,
    });
    expect(h.emulator.inspect().generationTasks).toHaveLength(2);
  });
});
