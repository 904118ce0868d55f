/**
 * The spend metrics (docs/tenants.md, "Budgets") on a worker PROCESS's Prometheus endpoint
 * (REELFLOW_METRICS_BIND; the SDK's Runtime is installed once per process, so not in jest's),
 * with REELFLOW_TENANTS_FILE: reelflow_spend_total{tenant,kind} in minor units and
 * reelflow_budget_remaining{tenant}, labelled with configured tenants only.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { METRICS } from '../../src/metrics/names';
import { spawnWorker, startHarness, type Harness } from '../support/harness';
import { freePort } from '../support/http-server';
import { until } from '../support/poll';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, sample lines only. */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .flatMap((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) return [];
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
      return [{ name: m[1], labels, value: Number(m[3]) }];
    });
}

describe('spend metrics on the worker process Prometheus endpoint', () => {
  const tenant = `metrics-${randomUUID().slice(0, 6)}`;
  let h: Harness;
  let worker: ChildProcess;
  let metricsUrl: string;

  beforeAll(async () => {
    h = await startHarness({
      inProcessWorkers: false,
      emulator: { profile: { generationRunningMs: 800, eraseInProgressMs: 500 } },
    });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-tenants-'));
    const file = path.join(dir, 'tenants.json');
    writeFileSync(
      file,
      JSON.stringify({
        prices: { generation: '0.35' },
        tenants: { [tenant]: { budget: { period: 'day', amount: '5' } } },
      }),
    );
    const bind = `127.0.0.1:${await freePort()}`;
    metricsUrl = `http://${bind}/metrics`;
    worker = spawnWorker(h, 'budget-metrics-worker', { REELFLOW_METRICS_BIND: bind, REELFLOW_TENANTS_FILE: file });
  });
  afterAll(async () => {
    if (worker?.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
    }
    await h?.close();
  });

  test('a generation and an erase: spend by kind in minor units, the budget left, configured tenants only', async () => {
    const handle = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'metrics' }] },
      erase: true,
      options: { archive: false, tenant },
    });
    await handle.result();
    const mine = (s: Sample) => s.labels.taskQueue === h.taskQueue;
    const samples = await until('the spend series', async () => {
      const s = parse(await (await fetch(metricsUrl)).text()).filter(mine);
      const spend = s.filter((x) => x.name === METRICS.spend.name);
      const left = s.find((x) => x.name === METRICS.budgetRemaining.name);
      return spend.length === 2 && left?.value === 5_000_000 - 350_015 && s;
    });
    const spend = samples.filter((x) => x.name === METRICS.spend.name);
    expect(spend.map((x) => [x.labels.tenant, x.labels.kind, x.value]).sort()).toEqual([
      [tenant, 'erase', 15],
      [tenant, 'generation', 350_000],
    ]);
    const tenants = new Set(
      samples
        .filter((x) => x.name.startsWith('reelflow_spend') || x.name.startsWith('reelflow_budget'))
        .map((x) => x.labels.tenant),
    );
    expect([...tenants]).toEqual([tenant]);
  });
});
