/**
 * Spend budgets end to end (docs/tenants.md, "Budgets"): the real dev server, a real worker
 * with a tenant configuration, the emulator as vendor. Each test has its own tenant, so its
 * ledger (reelflow-ledger/<tenant>/<day>) is its own.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { ledgerId, ledgerQuery, periodOf, spendAnswersQuery, type LedgerView } from '../../src/contract/ledger';
import { resolveCreateUpdate } from '../../src/contract/messages';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { rerunPipeline } from '../../src/starters/client/rerun';
import { setTenantBudget, tenantUsage, type TenantUsage } from '../../src/starters/client/ledger';
import { parseTenantsConfig } from '../../src/tenants/config';
import { cli } from '../support/cli';
import { rejection, startHarness, waitForStatus, type Harness } from '../support/harness';
import { until } from '../support/poll';
import { ledgerMessagesOf } from '../../tools/bench/history-counts';

const quick = {
  generationQueuedMs: 300,
  generationRunningMs: 800,
  assetProcessingMs: 500,
  eraseInProgressMs: 500,
  reviewProcessingMs: 500,
};

const tag = randomUUID().slice(0, 6);
const T = {
  fail: `fail-${tag}`,
  wait: `wait-${tag}`,
  ambiguous: `amb-${tag}`,
  retry: `retry-${tag}`,
  rerun: `rerun-${tag}`,
  can: `can-${tag}`,
  abandon: `abandon-${tag}`,
  burst: `burst-${tag}`,
  stage: `stage-${tag}`,
  runs: `runs-${tag}`,
};
const day = { period: 'day', amount: '2' };
const file = {
  prices: { generation: '1', erase: '0.000015', review: '0.01', assetGroup: '0.02', asset: '0.03' },
  tenants: {
    [T.fail]: { budget: day },
    [T.wait]: { budget: { period: 'day', amount: '1' } },
    [T.ambiguous]: { budget: { period: 'day', amount: '100' } },
    [T.retry]: {},
    [T.rerun]: {},
    [T.can]: {},
    [T.abandon]: {},
    [T.burst]: { budget: { period: 'day', amount: '1000' } },
    [T.stage]: { budget: { period: 'day', amount: '0.05' } },
    [T.runs]: {},
  },
};
const config = parseTenantsConfig(file);

/** The inputs a history's generation create activities were scheduled with. */
const createInputsOf = (events: temporal.api.history.v1.IHistoryEvent[]) =>
  events.flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    return a?.activityType?.name === 'generationCreate'
      ? [defaultPayloadConverter.fromPayload(a.input!.payloads![0])]
      : [];
  });

const generationOnly = (tenant: string, options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'budget test' }] },
  options: { archive: false, tenant, ...options },
});

describe('spend budgets', () => {
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    h = await startHarness({ emulator: { profile: quick }, tenants: config });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-tenants-'));
    writeFileSync(path.join(dir, 'tenants.json'), JSON.stringify(file));
    env = {
      ...process.env,
      REELFLOW_TENANTS_FILE: path.join(dir, 'tenants.json'),
      REELFLOW_TASK_QUEUE: h.taskQueue,
    };
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.emulator.reset());

  const ledger = (tenant: string) =>
    h.client.workflow.getHandle(ledgerId(tenant, periodOf(Date.now(), 'day', 0))).query(ledgerQuery);
  /** The ledger lists closed pipelines: it shows their spend a moment after they end. */
  const ledgerUntil = (tenant: string, pred: (v: LedgerView) => boolean) => {
    let last: LedgerView | undefined;
    return until(
      () => `ledger of ${tenant}; last ${JSON.stringify(last)}`,
      async () => {
        last = await ledger(tenant);
        return pred(last) && last;
      },
    );
  };
  /** The signals a ledger received, over all its runs so far. */
  const signalsTo = async (id: string) => {
    const names: string[] = [];
    let runId: string | undefined;
    do {
      const history = await h.client.workflow.getHandle(id, runId).fetchHistory();
      const events = history.events ?? [];
      names.push(...events.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []));
      runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    } while (runId);
    return names;
  };
  const monthLedgerUntil = (tenant: string, pred: (v: LedgerView) => boolean, want = '') => {
    let last: LedgerView | undefined;
    return until(
      () => `month ledger of ${tenant} ${want}; last ${JSON.stringify(last)}`,
      async () => {
        last = await h.client.workflow
          .getHandle(ledgerId(tenant, periodOf(Date.now(), 'month', 0)))
          .query(ledgerQuery)
          .catch(() => undefined);
        return last && pred(last) && last;
      },
    );
  };

  test('a budget covering exactly two creates: the third fails BudgetExceeded before its create (policy fail)', async () => {
    for (let i = 0; i < 2; i++) await h.run(generationOnly(T.fail, { overBudget: 'fail' }));
    await ledgerUntil(T.fail, (v) => v.spent === 2_000_000);
    const handle = await h.start(generationOnly(T.fail, { overBudget: 'fail' }));
    const err = await rejection(handle.result(), WorkflowFailedError);
    const cause = err.cause?.cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe('BudgetExceeded');
    expect(cause.message).toContain(`tenant ${T.fail}'s budget`);
    expect(h.emulator.inspect().generationTasks).toHaveLength(2);
    const status = await handle.query('status');
    expect((status as { calls: Record<string, number> }).calls['generation.create']).toBeUndefined();
    const v = await ledger(T.fail);
    expect(v.confirmed.generation.generation).toEqual({ amount: 2_000_000, count: 2 });
    expect(v.remaining).toBe(0);
  });

  test('policy fail and a plan of four creates over budget: BudgetExceeded before any paid create; the refusal is what the create read', async () => {
    const handle = await h.start({
      assets: {
        group: { name: `stage-${tag}` },
        items: [
          { name: 'a', url: 'https://media.example.com/a.png', type: 'Image' },
          { name: 'b', url: 'https://media.example.com/b.png', type: 'Image' },
        ],
      },
      ...generationOnly(T.stage, { overBudget: 'fail' }),
    });
    const err = await rejection(handle.result(), WorkflowFailedError);
    const cause = err.cause?.cause as ApplicationFailure;
    expect(cause.type).toBe('BudgetExceeded');
    expect(cause.message).toContain('cannot cover its plan (1 × assetGroup + 2 × asset + 1 × generation) at 1.08 CNY');
    // The group create read the refusal before its call (it looked the group up first, unpaid).
    const calls = (await handle.query<{ calls: Record<string, number> }>('status')).calls;
    expect(calls).toEqual({ 'assets.ListAssetGroups': 1 });
    expect(h.emulator.inspect().groups.filter((g) => g.Name === `stage-${tag}`)).toEqual([]);
    // A refusal reserves nothing: the whole budget is still there.
    expect(await ledger(T.stage)).toMatchObject({ spent: 0, reserved: 0, remaining: 50_000 });
    // What a create reads: the refusal for that very ask; another ask, a malformed one, or none read null.
    const chain = { pipelineId: handle.workflowId, firstRunId: handle.firstExecutionRunId };
    const read = await h.client.workflow
      .getHandle(ledgerId(T.stage, periodOf(Date.now(), 'day', 0)))
      .query(spendAnswersQuery, [
        { chain, key: 'plan', ask: 1 },
        { chain, key: 'plan', ask: 2 },
        { chain, key: 'extra-1', ask: 1 },
        { key: 'plan', ask: 1 } as never,
      ]);
    expect(read).toEqual([
      expect.objectContaining({ key: 'plan', ask: 1, granted: false, amount: 1_080_000, budget: 50_000 }),
      null,
      null,
      null,
    ]);
  });

  test('policy wait: waiting-budget, no create, then goes on when `reelflow budget set` raises the budget', async () => {
    await h.run(generationOnly(T.wait));
    const handle = await h.start(generationOnly(T.wait));
    const waiting = await waitForStatus(handle, (s) => s.state === 'waiting-budget');
    expect(waiting.stages.generation.detail).toContain('waiting for budget');
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);
    // The ledger finds the first pipeline closed by its next listing (docs/tenants.md, "Budgets").
    await ledgerUntil(T.wait, (x) => x.spent === 1_000_000);
    const shown = await cli(['budget', 'show', '--tenant', T.wait], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`${T.wait}\\s+\\S+\\s+1\\s+1\\s+1\\s+0\\s+0`));
    const set = await cli(['budget', 'set', '--tenant', T.wait, '--amount', '2'], { env });
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    await handle.result();
    expect(h.emulator.inspect().generationTasks).toHaveLength(2);
    const v = await ledgerUntil(T.wait, (x) => x.spent === 2_000_000);
    expect(v).toMatchObject({ budget: 2_000_000, override: 2_000_000, configuredBudget: 1_000_000, remaining: 0 });
    // The new period's ledger starts from the override; a wrong period is refused, naming it.
    const wrong = await setTenantBudget(h.client, config, {
      tenant: T.wait,
      amount: 1,
      period: 'month',
      taskQueue: h.taskQueue,
    }).catch((e: Error) => e);
    expect((wrong as Error).message).toMatch(/^--period: tenant .* reserve per day/);
  });

  test('an ambiguous create stays reserved while unreconciled, and is released when nothing was created', async () => {
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const handle = await h.start(generationOnly(T.ambiguous));
    await waitForStatus(handle, (s) => s.state === 'waiting-operator');
    const open = await ledgerUntil(T.ambiguous, (v) => v.reserved === 1_000_000);
    expect(open).toMatchObject({ spent: 0, remaining: 99_000_000 });
    await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { resubmit: true } }] });
    await handle.result();
    // The resubmit took the create the ambiguous attempt gave back: one reserved, one spent.
    const v = await ledgerUntil(T.ambiguous, (x) => x.spent === 1_000_000);
    expect(v).toMatchObject({ reserved: 0, released: 0, unresolved: [] });
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);
  });

  test('429s on create: each refused attempt gives its create back, the created one is confirmed once', async () => {
    h.emulator.setFaults({ 'generation.create': { rateLimit429: { next: 2, retryAfterSeconds: 1 } } });
    const { result } = await h.run(generationOnly(T.retry));
    expect(result.calls['generation.create']).toBe(3);
    const v = await monthLedgerUntil(T.retry, (x) => x.spent === 1_000_000);
    expect(v).toMatchObject({ released: 0, reserved: 0 });
    expect(v.confirmed.generation.generation.count).toBe(1);
    // One reservation for the whole pipeline, however many attempts: its definition check's ask.
    const events = (await h.client.workflow.getHandle(result.pipelineId).fetchHistory()).events ?? [];
    expect(ledgerMessagesOf(events).asks).toBe(0);
    expect(await signalsTo(ledgerId(T.retry, periodOf(Date.now(), 'month', 0)))).toEqual(['reserveSpendAsks']);
  });

  test('a rerun that reuses the generation spends nothing for it', async () => {
    const first = await h.run({ ...generationOnly(T.rerun), erase: true });
    await monthLedgerUntil(T.rerun, (x) => x.spent === 1_000_015);
    const rerun = await rerunPipeline(h.client, first.handle.workflowId, { from: 'erase' });
    await rerun.handle.result();
    const v = await monthLedgerUntil(T.rerun, (x) => x.spent === 1_000_030);
    expect(v.confirmed.generation.generation.count).toBe(1);
    expect(v.confirmed.erase.erase.count).toBe(2);
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);
  });

  test('continue-as-new never counts twice: spend equals the created tasks × price', async () => {
    const { handle } = await h.run({
      review: { media: ['https://media.example.com/a.png', 'https://media.example.com/b.jpg'] },
      assets: {
        group: { name: `can-${tag}` },
        items: [
          { name: 'a', url: 'https://media.example.com/a.png', type: 'Image' },
          { name: 'b', url: 'https://media.example.com/b.png', type: 'Image' },
        ],
      },
      ...generationOnly(T.can, { historyEventsBeforeContinueAsNew: 50 }),
      erase: true,
    });
    const d = await handle.describe();
    expect(d.runId).not.toBe((handle as WorkflowHandleWithFirstExecutionRunId).firstExecutionRunId);
    // No budget, nothing to refuse: the ledger counts and sends no answer to wait for.
    const signals = ((await handle.fetchHistory()).events ?? []).map(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName,
    );
    expect(signals).not.toContain('spendAnswered');
    const s = h.emulator.inspect();
    const expected =
      s.reviewTasks.length * 10_000 +
      s.groups.filter((g) => g.Name === `can-${tag}`).length * 20_000 +
      s.assets.filter((a) => a.origin === 'CreateAsset').length * 30_000 + // review's own assets are not creates
      s.generationTasks.length * 1_000_000 +
      s.eraseTasks.length * 15;
    expect(s.generationTasks).toHaveLength(1);
    const v = await monthLedgerUntil(T.can, (x) => x.spent === expected && x.reserved === 0, `${expected}`);
    expect(v.unresolved).toEqual([]);
  });

  test('a burst of 30 reserves at once: each asked once by its definition check, its grant read by its create (no answer signal), settled without a signal, counted once', async () => {
    const handles = await Promise.all(Array.from({ length: 30 }, () => h.start(generationOnly(T.burst))));
    await Promise.all(handles.map((p) => p.result()));
    const v = await ledgerUntil(T.burst, (x) => x.confirmed.generation?.generation?.count === 30 && x.reserved === 0);
    expect(v).toMatchObject({ spent: 30_000_000, remaining: 970_000_000, released: 0 });
    for (const p of handles) {
      const events = (await p.fetchHistory()).events ?? [];
      const types = events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
      expect(types).not.toContain('reserveSpend');
      // The ask rides in the definition check, its grant is read by the create activity, and the
      // ledger lists the pipeline closed: no ledger message in the pipeline's history.
      expect(ledgerMessagesOf(events)).toEqual({ asks: 0, answers: 0, settles: 0 });
      const inputs = createInputsOf(events);
      expect(inputs).toEqual([expect.objectContaining({ grant: expect.objectContaining({ key: 'plan', ask: 1 }) })]);
      expect(events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
    }
    const signals = await signalsTo(ledgerId(T.burst, periodOf(Date.now(), 'day', 0)));
    // The worker's asks to one ledger share signals (its batches): never more signals than asks.
    expect(new Set(signals)).toEqual(new Set(['reserveSpendAsks']));
    expect(signals.length).toBeLessThanOrEqual(30);
  });

  test('a terminated ledger forgets nothing: its next run reads the money of the runs before it', async () => {
    const id = ledgerId(T.runs, periodOf(Date.now(), 'month', 0));
    await h.run(generationOnly(T.runs));
    await monthLedgerUntil(T.runs, (x) => x.spent === 1_000_000 && x.reserved === 0);
    // An operator's mistake: the ledger terminated. The next reserve starts a new run under its id.
    await h.client.workflow.getHandle(id).terminate('test: an operator terminates the ledger');
    await h.run(generationOnly(T.runs));
    const latest = await monthLedgerUntil(T.runs, (x) => x.spent === 2_000_000 && x.reserved === 0);
    expect(latest.confirmed.generation.generation).toEqual({ amount: 2_000_000, count: 2 });
    const [usage] = await tenantUsage(h.client, { tenant: T.runs });
    expect(usage).toMatchObject({ tenant: T.runs, periods: [latest.period], spent: 2_000_000 });
  });

  test('an abandoned ambiguous create is reported unresolved by `reelflow usage`, not counted as spent', async () => {
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const handle = await h.start(generationOnly(T.abandon));
    await waitForStatus(handle, (s) => s.state === 'waiting-operator');
    await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { abandon: true } }] });
    await rejection(handle.result(), WorkflowFailedError);
    const v = await monthLedgerUntil(T.abandon, (x) => x.unresolved.length === 1);
    expect(v).toMatchObject({ spent: 0, reserved: 0 });
    const out = await until('usage to list the tenant', async () => {
      const r = await cli(['usage', '--tenant', T.abandon], { env });
      return r.stdout.includes('unresolved:') && r;
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      `unresolved: ${T.abandon} generation generation ×1 1 CNY (${handle.workflowId}/${handle.firstExecutionRunId};`,
    );
    expect(out.stdout).toMatch(new RegExp(`${T.abandon}\\s+total\\s+-\\s+-\\s+0 CNY`));
    const json = await cli(['usage', '--tenant', T.abandon, '--json'], { env });
    expect(json.json<{ tenants: TenantUsage[] }>().tenants[0]).toMatchObject({
      tenant: T.abandon,
      spent: 0,
      unresolved: [{ amount: 1_000_000 }],
    });
  });
});
