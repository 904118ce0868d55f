import { temporal } from '@temporalio/proto';
import { parseDefinition } from '../../src/definition/definition';
import { PAID_KINDS, parseTenantsConfig, toMinorUnits } from '../../src/tenants/config';
import { plannedCreates } from '../../src/contract/plan';
import {
  BENCH_PRICES,
  budgetFor,
  budgetsRunPlans,
  budgetsTenantsFile,
  plannedCreatesOf,
  type BudgetsRunPlan,
  type Tenancy,
} from '../../tools/bench/budgets-plan';
import { budgetsFindings, budgetsRows, type BudgetsRun, type LedgerReading } from '../../tools/bench/budgets-report';
import { ledgerMessagesOf } from '../../tools/bench/history-counts';
import { addLedgerHistory, countLedgerRun, EMPTY_LEDGER_HISTORY } from '../../tools/bench/ledger-counts';
import type { PhaseResult } from '../../tools/bench/phase';
import { summarize } from '../../tools/bench/stats';
import { DEFAULT_WORKLOAD, pipelineDefinition, type Workload } from '../../tools/bench/workload';

const T = temporal.api.enums.v1.EventType;
const workload = (over: Partial<Workload> = {}): Workload => ({ ...DEFAULT_WORKLOAD, ...over });

describe('the budgets plan', () => {
  test.each([
    ['the default mix', workload()],
    ['three assets', workload({ assetsPerPipeline: 3 })],
    ['generation and erase only', workload({ stages: ['generation', 'erase'] })],
  ])("%s: the plan is the pipeline's own (src/workflows/lib/plan.ts)", (_, w) => {
    const def = parseDefinition(pipelineDefinition(w, { tag: 't', index: 0, callbacks: false, groupId: 'g1' }));
    expect(plannedCreatesOf(w)).toEqual(plannedCreates(def));
  });

  test('every paid kind has a price above 0', () => {
    expect(PAID_KINDS.map((k) => toMinorUnits(BENCH_PRICES[k]) > 0)).toEqual(PAID_KINDS.map(() => true));
  });

  test("the budget: the run's planned creates are 95% of it, so it is consumed 90–100% and never refused", () => {
    // review 0.002 + asset 0.0002 + generation 0.35 + erase 0.000016 = 352,216 minor units a pipeline.
    const b = budgetFor(200, workload());
    expect(b.plannedMinor).toBe(200 * 352_216);
    expect(b.budgetMinor).toBe(Math.ceil((200 * 352_216) / 0.95));
    expect(b.plannedMinor / b.budgetMinor).toBeGreaterThanOrEqual(0.9);
    expect(b.plannedMinor).toBeLessThanOrEqual(b.budgetMinor);
    expect(toMinorUnits(b.amount)).toBe(b.budgetMinor);
    const large = budgetFor(1000, workload({ assetsPerPipeline: 5 }));
    expect(large.plannedMinor).toBe(1000 * (352_216 + 4 * 200));
  });

  test('rounds alternate the tenancies; labels name the round only when there are several', () => {
    expect(budgetsRunPlans({ tenancies: ['none', 'count', 'budget'], rounds: 1 }).map((p) => p.label)).toEqual([
      'none',
      'count',
      'budget',
    ]);
    // Every second round in reverse: no tenancy always runs on the larger database.
    expect(budgetsRunPlans({ tenancies: ['none', 'budget'], rounds: 3 }).map((p) => p.label)).toEqual([
      'none-r1',
      'budget-r1',
      'budget-r2',
      'none-r2',
      'none-r3',
      'budget-r3',
    ]);
  });

  test("the tenants files are valid: the run's tenant by default, prices set; a daily budget only for budget", () => {
    const sizing = budgetFor(10, workload());
    expect(budgetsTenantsFile('none', 't')).toBeUndefined();
    const count = parseTenantsConfig(budgetsTenantsFile('count', 'bench-count-1', sizing));
    expect(count.defaultTenant).toBe('bench-count-1');
    expect(count.tenants['bench-count-1'].budget).toBeUndefined();
    expect(count.prices.generation).toBe(350_000);
    const budget = parseTenantsConfig(budgetsTenantsFile('budget', 'bench-budget-1', sizing));
    expect(budget.tenants['bench-budget-1'].budget).toEqual({ period: 'day', amount: sizing.budgetMinor });
  });
});

describe('ledger messages from histories', () => {
  const marker = (activityType: string) => ({
    eventType: T.EVENT_TYPE_MARKER_RECORDED,
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      details: { data: { payloads: [{ data: Buffer.from(JSON.stringify({ seq: 1, activity_type: activityType })) }] } },
    },
  });
  const signaled = (signalName: string) => ({
    eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    workflowExecutionSignaledEventAttributes: { signalName },
  });
  const sent = (signalName: string) => ({
    eventType: T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
    signalExternalWorkflowExecutionInitiatedEventAttributes: { signalName },
  });

  test("a pipeline's asks and settles (their local activities' markers) and answers received; other markers and signals are not", () => {
    const events = [
      marker('validateDefinition'),
      marker('askSpend'),
      signaled('spendAnswered'),
      signaled('cancelStage'),
      marker('settleSpend'),
      sent('settleSpend'),
      sent('webhook'),
      { eventType: T.EVENT_TYPE_MARKER_RECORDED, markerRecordedEventAttributes: { markerName: 'core_patch' } },
    ];
    expect(ledgerMessagesOf(events)).toEqual({ asks: 1, answers: 1, settles: 1 });
  });

  test("a ledger's run: signals in and out by name, activities by type, the run it continued from; runs add up", () => {
    const run = countLedgerRun([
      {
        eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
        workflowExecutionStartedEventAttributes: { continuedExecutionRunId: 'run-1' },
      },
      signaled('reserveSpendAsk'),
      { eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED },
      {
        eventType: T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
        activityTaskScheduledEventAttributes: { activityType: { name: 'verifySpendSenders' } },
      },
      sent('spendAnswered'),
      signaled('settleSpend'),
      signaled('reserveSpendAsk'),
    ]);
    expect(run).toEqual({
      runs: 1,
      events: 7,
      workflowTasks: 1,
      signalsReceived: { reserveSpendAsk: 2, settleSpend: 1 },
      signalsSent: { spendAnswered: 1 },
      activities: { verifySpendSenders: 1 },
      previousRunId: 'run-1',
    });
    const { previousRunId: _, ...counts } = run;
    const twice = addLedgerHistory(addLedgerHistory(EMPTY_LEDGER_HISTORY, counts), counts);
    expect(twice).toMatchObject({ runs: 2, events: 14, signalsReceived: { reserveSpendAsk: 4, settleSpend: 2 } });
  });
});

describe('the budgets rows', () => {
  /** A run's result: its wall, its worker's and server's CPU (s), events p50, ledger messages. */
  const result = (wallS: number, cpu: number, events: number, ledger?: PhaseResult['ledgerMessages']) =>
    ({
      pipelines: 100,
      completed: 100,
      failed: 0,
      wallMs: wallS * 1000,
      historyEvents: summarize([events]),
      workflowTasks: summarize([14]),
      firstActivityMs: summarize([500]),
      processes: [{ name: 'reelflow worker 1', cpuSeconds: cpu / 2, peakRssMb: 300 }],
      context: [{ name: 'temporal server', cpuSeconds: cpu / 2, peakRssMb: 100 }],
      ...(ledger ? { ledgerMessages: ledger } : {}),
    }) as PhaseResult;
  const ledger = (spent: number, budget?: number): LedgerReading => ({
    ids: ['reelflow-ledger/t/2026-11-28'],
    ...(budget !== undefined ? { budget } : {}),
    spent,
    reserved: 0,
    unresolved: 0,
    released: 0,
    refused: 0,
    pending: 0,
    drainMs: 10,
    drained: true,
    history: {
      runs: 1,
      events: 1200,
      workflowTasks: 210,
      signalsReceived: { reserveSpendAsk: 100, settleSpend: 100 },
      signalsSent: { spendAnswered: 100 },
      activities: { readSpendRecord: 100, verifySpendSenders: 10, openLedger: 1 },
    },
  });
  const run = (tenancy: Tenancy, round: number, r: PhaseResult, l?: LedgerReading): BudgetsRun => {
    const plan: BudgetsRunPlan = { tenancy, round, label: `${tenancy}-r${round}` };
    return { plan, result: r, ...(l ? { ledger: l } : {}) };
  };

  test("each row's ratio is the median of its rounds' ratios to that round's none; consumed is spent ÷ budget", () => {
    const runs = [
      run('none', 1, result(40, 20, 98)),
      run('budget', 1, result(44, 22, 110, { asks: 1, answers: 1, settles: 1 }), ledger(95, 100)),
      run('none', 2, result(50, 20, 98)),
      run('budget', 2, result(52, 24, 110, { asks: 1, answers: 1, settles: 1 }), ledger(93, 100)),
      run('none', 3, result(40, 20, 98)),
      run('budget', 3, result(48, 21, 110, { asks: 1, answers: 1, settles: 1 }), ledger(94, 100)),
    ];
    const [none, budget] = budgetsRows(runs);
    expect(none).toMatchObject({ tenancy: 'none', rounds: 3, completed: 300, wallMs: 40_000, wallRatio: 1 });
    // wall ratios 1.10, 1.04, 1.20 → 1.10; CPU ratios 1.10, 1.20, 1.05 → 1.10.
    expect(budget.wallRatio).toBeCloseTo(1.1);
    expect(budget.cpuRatio).toBeCloseTo(1.1);
    expect(budget.cpuPerPipeline).toBeCloseTo(0.22);
    expect(budget.consumed).toBeCloseTo(0.94);
    expect(budget.ledgerMessages).toEqual({ asks: 1, answers: 1, settles: 1, total: 3 });
    expect(budget.ledgerSide).toEqual({
      signalsReceived: 2,
      signalsSent: 1,
      events: 12,
      workflowTasks: 2.1,
      activities: 1.11,
    });
    expect(none.ledgerMessages).toBeUndefined();
    expect(budgetsFindings([none, budget], runs)).toEqual([]);
  });

  test('findings: the budget row past 1.1× none, a budget consumed below 90%, a ledger that refused or was asked again', () => {
    const refusing = { ...ledger(50, 100), refused: 2 };
    const runs = [
      run('none', 1, result(40, 20, 98)),
      run('budget', 1, result(46, 23, 110, { asks: 2, answers: 2, settles: 1 }), refusing),
    ];
    expect(budgetsFindings(budgetsRows(runs), runs)).toEqual([
      'budget-r1: the ledger refused 2 messages',
      'budget-r1: 2 asks per pipeline (a refusal, a wait or a lost answer)',
      'budget: wall 1.150× none, target ≤ 1.1×',
      'budget: CPU per pipeline 1.150× none, target ≤ 1.1×',
      'budget: 50.0% of the budget consumed, sized for 90–100%',
    ]);
  });
});
