import type { PhaseResult } from '../../tools/bench/phase';
import {
  matcherSettingsOf,
  ownTenants,
  tenantsFileContent,
  tenantsRunPlans,
  variantWaves,
  type TenantsScenario,
} from '../../tools/bench/tenants-plan';
import {
  checksAndFindings,
  groupTimes,
  renderTenantsMarkdown,
  runSummary,
  variantChecks,
  type TenantsReport,
  type TenantsRun,
  type TenantsRunSummary,
} from '../../tools/bench/tenants-report';
import { parseTenantsConfig } from '../../src/tenants/config';
import { summarize } from '../../tools/bench/stats';
import { DEFAULT_WORKLOAD } from '../../tools/bench/workload';

const scenario: TenantsScenario = {
  aPipelines: 3,
  bPipelines: 2,
  bDelayMs: 20_000,
  variants: ['priority', 'fairness', 'off'],
};

/** A pipeline started at `start` s that took `took` s (server clock, ms). */
const pipe = (index: number, start: number, took: number, ok = true): PhaseResult['perPipeline'][number] => ({
  index,
  ok,
  pipelineMs: took * 1000,
  vendorMs: 0,
  overheadMs: took * 1000,
  startMs: start * 1000,
  closeMs: (start + took) * 1000,
});

/** The parts of a run's result the tenants report reads. */
function result(perPipeline: PhaseResult['perPipeline'], extra: Partial<PhaseResult> = {}): PhaseResult {
  return {
    pipelines: perPipeline.length,
    failed: perPipeline.filter((p) => !p.ok).length,
    perPipeline,
    getAssetBusiestWindow: { count: 9, startMs: 0 },
    natural429Total: 0,
    extraVendorTasks: 0,
    ...extra,
  } as PhaseResult;
}

describe('the tenants scenario plan', () => {
  test('solo B, solo A, then each variant; A first, B after the delay', () => {
    const plans = tenantsRunPlans({ ...scenario, variants: ['priority', 'fairness', 'off'] });
    expect(plans.map((p) => p.label)).toEqual(['solo-b', 'solo-a', 'priority', 'fairness', 'off']);
    expect(plans[0].waves).toEqual([{ count: 2, afterMs: 0, tenant: 'tenant-b', priority: 'interactive' }]);
    expect(plans[1].waves).toEqual([{ count: 3, afterMs: 0, tenant: 'tenant-a', priority: 'batch' }]);
    expect(plans.map((p) => p.tenantsFile)).toEqual([true, true, true, true, false]);
  });

  test('fairness alone: both at one level; off: neither tenant nor priority', () => {
    expect(variantWaves(scenario, 'fairness').map((w) => [w.tenant, w.priority])).toEqual([
      ['tenant-a', 'normal'],
      ['tenant-b', 'normal'],
    ]);
    expect(variantWaves(scenario, 'off')).toEqual([
      { count: 3, afterMs: 0 },
      { count: 2, afterMs: 20_000 },
    ]);
  });

  test("the worker's tenants file is valid: both tenants up to interactive, weight 1, no limit, no budget", () => {
    const config = parseTenantsConfig(tenantsFileContent());
    expect(Object.keys(config.tenants)).toEqual(['tenant-a', 'tenant-b']);
    expect(config.defaults.maxPriority).toBe('interactive');
    expect(config.defaults.concurrency).toBeUndefined();
    expect(config.tenants['tenant-a'].budget).toBeUndefined();
  });
});

describe('matcherSettingsOf', () => {
  test("reads the matcher keys of a dynamic config YAML; a key it does not set is unset (the server's default)", () => {
    const yaml = [
      'matching.numTaskqueueReadPartitions:',
      '  - value: 1',
      '# the new matcher',
      'matching.useNewMatcher:',
      '  - value: true',
      'matching.enableFairness:',
      '  - value: false',
      '',
    ].join('\n');
    expect(matcherSettingsOf(yaml)).toEqual({
      'matching.useNewMatcher': 'true',
      'matching.enableFairness': 'false',
      'matching.enableMigration': 'unset',
    });
  });
});

describe('tenant times', () => {
  test("a group's wall is its first start to its last close, failed pipelines included; percentiles of completed only", () => {
    const per = [pipe(0, 0, 10), pipe(1, 0, 30), pipe(2, 1, 50, false), pipe(3, 20, 12), pipe(4, 20, 14)];
    const a = groupTimes(per, 0, 3);
    expect(a).toMatchObject({ pipelines: 3, completed: 2, wallMs: 51_000 });
    expect(a.pipelineMs.p50).toBe(10_000);
    const b = groupTimes(per, 3, 2);
    expect(b.wallMs).toBe(14_000);
    expect(b.pipelineMs.p95).toBe(14_000);
  });

  test('runSummary splits the waves by index: A first, then B; a solo run has one group', () => {
    const [soloB, , priority] = tenantsRunPlans(scenario);
    const per = [pipe(0, 0, 10), pipe(1, 0, 11), pipe(2, 0, 12), pipe(3, 20, 5), pipe(4, 20, 7)];
    const s = runSummary(priority, result(per, { natural429Total: 2, extraVendorTasks: 1 }));
    expect(s.A?.completed).toBe(3);
    expect(s.B?.pipelineMs.max).toBe(7_000);
    expect(s.wallMs).toBe(27_000);
    expect([s.natural429, s.duplicates, s.getAssetBusiestSecond]).toEqual([2, 1, 9]);
    const solo = runSummary(soloB, result([pipe(0, 0, 4), pipe(1, 0, 6)]));
    expect(solo.A).toBeUndefined();
    expect(solo.B?.pipelineMs.p50).toBe(4_000);
  });
});

describe('targets', () => {
  const summary = (label: TenantsRunSummary['label'], g: Partial<TenantsRunSummary>): TenantsRunSummary => ({
    label,
    wallMs: 0,
    getAssetBusiestSecond: 9,
    natural429: 0,
    duplicates: 0,
    ...g,
  });
  const times = (p50: number, wall = 0) => ({
    pipelines: 1,
    completed: 1,
    pipelineMs: summarize([p50]),
    wallMs: wall,
  });
  const soloA = summary('solo-a', { A: times(0, 100_000) });
  const soloB = summary('solo-b', { B: times(10_000) });

  test('B p50 within 1.5× and A wall within 1.05× of solo are met; just over is missed', () => {
    const met = variantChecks(summary('priority', { A: times(0, 105_000), B: times(15_000) }), soloA, soloB);
    expect(met.map((c) => [c.got, c.met])).toEqual([
      ['1.50×', true],
      ['1.05×', true],
      ['0', true],
      ['0', true],
    ]);
    const missed = variantChecks(
      summary('off', { A: times(0, 106_000), B: times(15_100), natural429: 1, duplicates: 2 }),
      soloA,
      soloB,
    );
    expect(missed.map((c) => c.met)).toEqual([false, false, false, false]);
  });

  test('without a solo run the ratios are not measurable (null), never met', () => {
    const c = variantChecks(summary('fairness', { A: times(0, 1), B: times(1) }));
    expect(c.slice(0, 2).map((x) => [x.got, x.met])).toEqual([
      ['n/a', null],
      ['n/a', null],
    ]);
  });

  test('findings name each missed target and each run with failures; the markdown shows them', () => {
    const plans = tenantsRunPlans({ ...scenario, variants: ['priority'] });
    const runs: TenantsRun[] = [
      { plan: plans[0], summary: soloB, result: result([pipe(0, 0, 10)]) },
      { plan: plans[1], summary: soloA, result: result([pipe(0, 0, 100, false)]) },
      {
        plan: plans[2],
        summary: summary('priority', { A: times(0, 200_000), B: times(12_000) }),
        result: result([pipe(0, 0, 1)]),
      },
    ];
    const on = {
      'matching.useNewMatcher': 'true',
      'matching.enableFairness': 'true',
      'matching.enableMigration': 'unset',
    };
    const { checks, findings } = checksAndFindings(runs, on);
    expect(Object.keys(checks)).toEqual(['priority']);
    expect(findings).toEqual(['solo-a: 1 of 1 pipelines failed', 'priority: A wall ≤ 1.05× solo missed (2.00×)']);
    const report = {
      startedAt: '2026-11-27T00:00:00.000Z',
      command: 'npm run bench -- --scenario tenants',
      machine: { cores: 2, cpuModel: 'x', memoryGiB: 4, node: 'v20', platform: 'Linux', loadAverageAtStart: 1 },
      settings: {
        scenario,
        callbacks: 'on',
        workload: DEFAULT_WORKLOAD,
        workers: 1,
        getAssetRatePerSecond: 9,
        workerEnv: {},
        temporalServer: 'dev server',
        matcher: on,
        tenantsFile: tenantsFileContent(),
        timeoutSeconds: 600,
      },
      runs,
      checks,
      findings,
    } satisfies TenantsReport;
    const md = renderTenantsMarkdown(report);
    expect(md).toContain('| B p50 / p95 ÷ B alone | 1.00× / 1.00× | — | 1.20× / 1.20× |');
    expect(md).toContain('| A wall ≤ 1.05× solo | 2.00× **missed** |');
    expect(md).toContain('review → assets (1 per pipeline) → generation → erase → archive');
    expect(md).toContain('Matcher: matching.useNewMatcher true, matching.enableFairness true');
  });

  test('a server without the new matcher or without fairness is a finding: the keys cannot take effect', () => {
    const { findings } = checksAndFindings([], {
      'matching.useNewMatcher': 'true',
      'matching.enableFairness': 'unset',
      'matching.enableMigration': 'unset',
    });
    expect(findings).toEqual([
      'the server runs without matching.enableFairness: priority and fairness keys take no effect',
    ]);
  });
});

describe('ownTenants', () => {
  test("each run gets its own tenant ids (a tenant's ledger stays on the queue that first used it), in its waves and its file", () => {
    const [soloB, , priority] = tenantsRunPlans(scenario);
    const own = ownTenants(priority, 'x1');
    expect(own.waves.map((w) => w.tenant)).toEqual(['tenant-a-priority-x1', 'tenant-b-priority-x1']);
    expect(Object.keys(parseTenantsConfig(own.file).tenants)).toEqual(['tenant-a-priority-x1', 'tenant-b-priority-x1']);
    expect(ownTenants(soloB, 'x1').waves[0].tenant).toBe('tenant-b-solo-b-x1');
  });
});
