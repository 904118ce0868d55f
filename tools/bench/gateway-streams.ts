/**
 * `npx tsx tools/bench/gateway-streams.ts [--pipelines 100] [--subscribers 10] [--running-ms 20000]`:
 * the gateway's event streams under load (docs/benchmarks.md, "Gateway event streams"). A dev
 * server, the emulator (in this process), one worker process and one `reelflow serve` process
 * (both the product build: run `npm run build` first); this process is every subscriber.
 *
 * 1. History events added by watching: pipelines run with 0, 1 and 10 subscribers, and their
 *    histories are counted.
 * 2. The load run: N pipelines started through the API as fast as it takes them, S
 *    subscribers on each; every subscriber must see its pipeline's end. Reported: the start
 *    rate, p50/p95 from a change in the workflow (the newest workflow-time stamp a snapshot
 *    carries) to its event at the subscriber, the gateway's and the worker's CPU and RSS,
 *    status queries per second.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { DEFAULT_ACCESS_TOKENS, DEFAULT_API_KEYS, startEmulator } from '../../src/emulator';
import type { PipelineStatus } from '../../src/contract/status';
import { readProcStats, spawnNode, killAllSpawned, type NodeProcess, type ProcStats } from './processes';
import { percentile } from './stats';
import { startBenchServer } from './temporal-server';
import { connectTemporal } from '../../src/config/temporal-connection';

const ROOT = path.resolve(__dirname, '../..');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const say = (line: string) => process.stderr.write(`gateway bench: ${line}\n`);

interface Stack {
  url: string;
  token: string;
  client: Client;
  gateway: NodeProcess;
  worker: NodeProcess;
}

/** The newest workflow-time stamp a snapshot carries: when its latest change happened in the workflow. */
export function changedAt(s: PipelineStatus): number {
  const stamps = [
    ...Object.values(s.stages).flatMap((st) => [st.startedAt, st.endedAt]),
    ...s.vendorTasks.map((t) => t.recordedAt),
  ].filter((x): x is string => typeof x === 'string');
  return Math.max(0, ...stamps.map((x) => Date.parse(x)));
}

interface Watched {
  events: number;
  ended: boolean;
  latencies: number[];
}

/** One subscriber: reads the stream to its end, timing each status whose change is new. */
async function subscribe(stack: Stack, id: string): Promise<Watched> {
  const res = await fetch(`${stack.url}/v1/pipelines/${encodeURIComponent(id)}/events`, {
    headers: { authorization: `Bearer ${stack.token}` },
  });
  const out: Watched = { events: 0, ended: false, latencies: [] };
  if (!res.ok || !res.body) return out;
  const decoder = new TextDecoder();
  let buf = '';
  let lastChange = 0;
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk as Uint8Array, { stream: true });
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!data) continue;
      const change = JSON.parse(data) as { kind: string; status?: PipelineStatus };
      out.events++;
      if (change.kind === 'end') out.ended = true;
      const at = change.status ? changedAt(change.status) : 0;
      if (change.kind === 'status' && at > lastChange) {
        if (lastChange > 0) out.latencies.push(Date.now() - at);
        lastChange = at;
      }
    }
  }
  return out;
}

const definition = (runningMs: number) => ({
  name: 'gwbench',
  generation: { model: 'video-model-1', content: [{ type: 'text', text: `bench ${runningMs}` }] },
  erase: true,
  options: { archive: false, allowPrivateHosts: true },
});

async function startOne(stack: Stack, runningMs: number): Promise<string> {
  const res = await fetch(`${stack.url}/v1/pipelines`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ definition: definition(runningMs) }),
  });
  const body = (await res.json()) as { pipelineId?: string; detail?: string };
  if (!body.pipelineId) throw new Error(`start: HTTP ${res.status} ${body.detail ?? ''}`);
  return body.pipelineId;
}

async function historyLength(client: Client, id: string): Promise<number> {
  return (await client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
}

async function historyEvents(stack: Stack, subscribers: number, runs = 3): Promise<number[]> {
  const lengths: number[] = [];
  for (let i = 0; i < runs; i++) {
    const id = await startOne(stack, 0);
    await Promise.all(Array.from({ length: subscribers }, () => subscribe(stack, id)));
    await stack.client.workflow.getHandle(id).result();
    lengths.push(await historyLength(stack.client, id));
  }
  return lengths;
}

async function metric(stack: Stack, name: string): Promise<number> {
  const text = await (await fetch(`${stack.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

const delta = (a: ProcStats | undefined, b: ProcStats | undefined) => (b && a ? b.cpuSeconds - a.cpuSeconds : NaN);

async function loadRun(stack: Stack, pipelines: number, perPipeline: number, runningMs: number) {
  const cpu0 = { gw: readProcStats(stack.gateway.pid), wk: readProcStats(stack.worker.pid) };
  const q0 = await metric(stack, 'reelflow_gateway_status_queries_total');
  let peakRss = { gw: 0, wk: 0 };
  const rssTimer = setInterval(() => {
    peakRss = {
      gw: Math.max(peakRss.gw, readProcStats(stack.gateway.pid)?.rssKb ?? 0),
      wk: Math.max(peakRss.wk, readProcStats(stack.worker.pid)?.rssKb ?? 0),
    };
  }, 500);
  const t0 = Date.now();
  const ids: string[] = [];
  const watching: Promise<Watched>[] = [];
  // Starts as fast as the gateway takes them, 8 in flight; subscribers attach as each starts.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < pipelines) {
        next++;
        const id = await startOne(stack, runningMs);
        ids.push(id);
        for (let s = 0; s < perPipeline; s++) watching.push(subscribe(stack, id));
      }
    }),
  );
  const startSeconds = (Date.now() - t0) / 1000;
  const results = await Promise.all(watching);
  const seconds = (Date.now() - t0) / 1000;
  clearInterval(rssTimer);
  const cpu1 = { gw: readProcStats(stack.gateway.pid), wk: readProcStats(stack.worker.pid) };
  const q1 = await metric(stack, 'reelflow_gateway_status_queries_total');
  const latencies = results.flatMap((r) => r.latencies);
  return {
    pipelines,
    subscribers: results.length,
    startsPerSecond: pipelines / startSeconds,
    lostEnds: results.filter((r) => !r.ended).length,
    events: results.reduce((n, r) => n + r.events, 0),
    latencyMs: { n: latencies.length, p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    seconds,
    gatewayCpuPercent: (100 * delta(cpu0.gw, cpu1.gw)) / seconds,
    workerCpuPercent: (100 * delta(cpu0.wk, cpu1.wk)) / seconds,
    gatewayPeakRssMb: peakRss.gw / 1024,
    workerPeakRssMb: peakRss.wk / 1024,
    statusQueriesPerSecond: (q1 - q0) / seconds,
  };
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-gw-bench-'));
  const runningMs = arg('running-ms', 20_000);
  const server = await startBenchServer({ kind: 'dev', dir, inMemory: true, database: 'unused', log: say });
  const emulator = await startEmulator({
    port: 0,
    profile: { generationQueuedMs: 200, generationRunningMs: runningMs, eraseInProgressMs: 1_000 },
  });
  const token = randomBytes(24).toString('hex');
  const common = { PATH: process.env.PATH, HOME: dir, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' };
  const taskQueue = 'gw-bench';
  const worker = spawnNode({
    name: 'worker',
    script: path.join(ROOT, 'dist/workers/main.js'),
    logFile: path.join(dir, 'worker.log'),
    env: {
      ...common,
      VENDOR_BASE_URL: emulator.url,
      VENDOR_IDENTITY_URL: emulator.url,
      REELFLOW_TASK_QUEUE: taskQueue,
      REELFLOW_PROFILE_DEFAULT_API_KEY: DEFAULT_API_KEYS[0],
      REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: DEFAULT_ACCESS_TOKENS[0],
      REELFLOW_ARCHIVE_DIR: path.join(dir, 'archive'),
      REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1',
    },
  });
  await worker.waitForLine(/"msg":"polling /, 180_000);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const gateway = spawnNode({
    name: 'gateway',
    script: path.join(ROOT, 'dist/starters/cli/main.js'),
    args: ['serve', '--port', String(port)],
    logFile: path.join(dir, 'gateway.log'),
    env: {
      ...common,
      REELFLOW_TASK_QUEUE: taskQueue,
      REELFLOW_GATEWAY_TOKENS: JSON.stringify({ tokens: [{ name: 'bench', token, admin: true }] }),
      REELFLOW_GATEWAY_RATE: '100000',
    },
  });
  await gateway.waitForLine(/listening on/, 60_000);
  const client = new Client({ connection: await connectTemporal({ address: server.address }) });
  const stack: Stack = { url: `http://127.0.0.1:${port}`, token, client, gateway, worker };
  try {
    const history: Record<string, number[]> = {};
    for (const n of [0, 1, 10]) history[`${n} subscribers`] = await historyEvents(stack, n);
    say(`history events per pipeline: ${JSON.stringify(history)}`);
    const pipelines = arg('pipelines', 100);
    const report = await loadRun(stack, pipelines, arg('subscribers', 10), runningMs);
    process.stdout.write(`${JSON.stringify({ history, load: report }, null, 2)}\n`);
  } finally {
    await gateway.stop(5_000);
    await worker.stop(10_000);
    await client.connection.close();
    await emulator.close();
    await server.stop();
    killAllSpawned();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    say(err instanceof Error ? (err.stack ?? err.message) : String(err));
    killAllSpawned();
    process.exit(1);
  });
}
