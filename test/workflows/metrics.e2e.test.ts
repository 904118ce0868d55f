/**
 * reelflow_* metrics on the worker's Prometheus endpoint: a worker PROCESS (the real entry,
 * REELFLOW_METRICS_BIND on a free loopback port; the SDK's Runtime is installed once per
 * process, so not in jest's) runs one pipeline through a 429, an ambiguous asset create
 * reconciled by name and an ambiguous generation create an operator resolves; then
 * /metrics is scraped over HTTP. One invalid pipeline fails for the end-state count.
 */
import type { ChildProcess } from 'node:child_process';
import { WorkflowFailedError } from '@temporalio/client';
import { METRICS } from '../../src/metrics/names';
import { resolveCreateUpdate, type PipelineResult } from '../../src/contract/messages';
import { rejection, spawnWorker, startHarness, waitForStatus, type Harness } from '../support/harness';
import { freePort } from '../support/http-server';
import { until } from '../support/poll';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, sample lines only (label values here hold no escaped quotes). */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`unparsed metrics line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}

/** Sum of the series of `name` whose labels include `want` (the SDK adds namespace, taskQueue, ...). */
function total(samples: Sample[], name: string, want: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(want).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

describe('metrics on the worker process Prometheus endpoint', () => {
  let h: Harness;
  let worker: ChildProcess;
  let metricsUrl: string;
  const scrape = async () => parse(await (await fetch(metricsUrl)).text());
  /** Scrapes until `pred` holds (metrics of a workflow task or a visibility count land a moment later). */
  const scrapeUntil = (what: string, pred: (s: Sample[]) => boolean) =>
    until(what, async () => {
      const s = await scrape().catch(() => undefined);
      return s && pred(s) ? s : undefined;
    });

  beforeAll(async () => {
    h = await startHarness({
      inProcessWorkers: false,
      emulator: { profile: { generationRunningMs: 1_000, assetProcessingMs: 500, eraseInProgressMs: 500 } },
    });
    const bind = `127.0.0.1:${await freePort()}`;
    metricsUrl = `http://${bind}/metrics`;
    worker = spawnWorker(h, 'metrics-worker', { REELFLOW_METRICS_BIND: bind, REELFLOW_METRICS_REFRESH: '1' });
  });
  afterAll(async () => {
    if (worker?.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
    }
    await h?.close();
  });

  test('one pipeline through a 429, a name reconcile and an operator wait: every reelflow_* series', async () => {
    h.emulator.setFaults({
      'assets.GetAsset': { rateLimit429: { next: 1, retryAfterSeconds: 1 } },
      'assets.CreateAsset': { resetAfterCreate: { next: 1 } },
      'generation.create': { resetAfterCreate: { next: 1 } },
    });
    const handle = await h.start({
      assets: {
        group: { name: 'metrics-e2e' },
        items: [{ name: 'pic', url: 'https://media.example.com/p.png', type: 'Image' }],
      },
      generation: { model: 'video-model-1', content: [{ type: 'image_url', image_url: { url: 'ref:asset/pic' } }] },
      erase: true,
    });
    await waitForStatus(handle, (s) => s.state === 'waiting-operator', 90_000);
    const waiting = await scrapeUntil('operator waits = 1', (s) => total(s, METRICS.operatorWaits.name) === 1);
    expect(total(waiting, METRICS.operatorWaits.name, { taskQueue: h.taskQueue })).toBe(1);

    const [task] = h.emulator.inspect().generationTasks;
    await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: task.id } }] });
    const result: PipelineResult = await handle.result();
    const s = await scrapeUntil(
      'the pipeline counted and no wait left',
      (x) => total(x, METRICS.pipelinesEnded.name) === 1 && total(x, METRICS.operatorWaits.name) === 0,
    );

    const calls = METRICS.vendorCalls.name;
    expect(total(s, calls, { interface: 'assets', endpoint: 'assets.GetAsset', outcome: 'rate_limited' })).toBe(1);
    expect(total(s, calls, { endpoint: 'assets.GetAsset', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(total(s, calls, { endpoint: 'assets.CreateAsset', outcome: 'ambiguous' })).toBe(1);
    expect(total(s, calls, { interface: 'generation', endpoint: 'generation.create', outcome: 'ambiguous' })).toBe(1);
    expect(total(s, calls, { endpoint: 'generation.create', outcome: 'ok' })).toBe(0);
    expect(total(s, calls, { endpoint: 'erase.create', outcome: 'ok' })).toBe(result.calls['erase.create']);
    expect(total(s, calls, { endpoint: 'generation.get', outcome: 'ok' })).toBe(result.calls['generation.get']);

    const reconcile = METRICS.reconcile.name;
    expect(total(s, reconcile, { kind: 'asset', outcome: 'found_by_name' })).toBe(1);
    expect(total(s, reconcile, { kind: 'generation', outcome: 'waited' })).toBe(1);
    expect(total(s, reconcile, { kind: 'generation', outcome: 'found_by_operator' })).toBe(1);
    expect(total(s, reconcile)).toBe(3);

    const stage = METRICS.stageDuration.name;
    for (const name of ['assets', 'generation', 'erase'] as const) {
      expect(total(s, `${stage}_count`, { stage: name, state: 'done' })).toBe(1);
      expect(total(s, `${stage}_sum`, { stage: name })).toBeCloseTo(result.timings[name]! / 1000, 3);
    }
    expect(total(s, `${stage}_count`, { stage: 'review' })).toBe(0); // skipped, never run
    expect(total(s, `${stage}_bucket`, { stage: 'generation', le: '+Inf' })).toBe(1);

    expect(total(s, METRICS.pipelinesEnded.name, { state: 'completed', stage: 'done' })).toBe(1);
    expect(total(s, METRICS.cost.name, { currency: '¥', item: 'erase' })).toBe(15); // 0.000015 ¥ in millionths
    expect(result.archived).toHaveLength(2);
    const archived = result.archived.reduce((sum, f) => sum + f.bytes, 0);
    expect(total(s, METRICS.archiveBytes.name)).toBe(archived);
    // The SDK's own metrics stay on the same endpoint.
    expect(s.some((x) => x.name.startsWith('temporal_') && x.labels.task_queue === h.taskQueue)).toBe(true);
  });

  test('a failed pipeline is counted by end state, stage and failure type', async () => {
    const handle = await h.start({
      generation: { model: 'm', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    });
    await rejection(handle.result(), WorkflowFailedError);
    const failed = { state: 'failed', failure: 'InvalidDefinition' };
    const s = await scrapeUntil(
      'the failed pipeline counted',
      (x) => total(x, METRICS.pipelinesEnded.name, failed) > 0,
    );
    expect(total(s, METRICS.pipelinesEnded.name, failed)).toBe(1);
    expect(total(s, METRICS.pipelinesEnded.name)).toBe(2);
  });
});
