/**
 * The two runs of each mechanism in the stream-mechanisms bench (docs/benchmarks.md, "Gateway
 * event streams"):
 *
 * - history: W workflows with 0, 1 and 10 subscribers each; every history is read after its
 *   end and its events counted, by type;
 * - load: W workflows × S subscribers at once; measured from the first start to the last
 *   subscriber's end: latency from a change (its workflow-time `changedAt`) to its arrival
 *   at each subscriber, the bench process's (subscriber side's) and the worker's CPU and RSS,
 *   queries, Updates and sink pushes per second, the machine's load.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { percentile } from '../stats';
import type { Feed, Mechanism, SinkReceiver } from './feeds';
import { workflowMechanism } from './feeds';
import { collectGarbage, Meter, type ProcessUse } from './meter';
import type { Snapshot, StreamBenchInput, streamBenchWorkflow } from './workflow';

/** Queries and Updates this process sent (a client interceptor counts them). */
export interface CallCounts {
  queries: number;
  updates: number;
}

export interface RunContext {
  client: Client;
  calls: CallCounts;
  receiver: SinkReceiver;
  feed: Feed;
  mechanism: Mechanism;
  taskQueue: string;
  workerPid: number;
  serverPid: number;
  changes: number;
  gapMs: number;
  say: (line: string) => void;
}

interface Watcher {
  attachedAt: number;
  /** Distinct versions received. */
  received: number;
  lastVersion: number;
  latencies: number[];
  sawLast: boolean;
  error?: string;
}

/** One subscriber: counts each new version, and times each change made after it attached. */
function watch(feed: Feed, workflowId: string): { watcher: Watcher; done: Promise<void> } {
  const w: Watcher = {
    attachedAt: Date.now(),
    received: 0,
    lastVersion: -1,
    latencies: [],
    sawLast: false,
  };
  const onSnapshot = (s: Snapshot) => {
    const now = Date.now();
    if (s.version <= w.lastVersion) return;
    w.lastVersion = s.version;
    w.received++;
    if (s.version > 0 && s.changedAt >= w.attachedAt) w.latencies.push(now - s.changedAt);
    if (s.last) w.sawLast = true;
  };
  const done = feed.subscribe(workflowId, onSnapshot).catch((err: unknown) => {
    w.error = err instanceof Error ? err.message : String(err);
  });
  return { watcher: w, done };
}

interface Started {
  ids: string[];
  watchers: Watcher[];
  /** Every subscriber's end and every workflow's result. */
  finished: Promise<unknown>;
  startSeconds: number;
}

/** Starts `n` workflows, 8 starts in flight, and attaches `subscribers` to each as soon as it has started. */
async function startWatched(ctx: RunContext, n: number, subscribers: number, tag: string): Promise<Started> {
  const input: StreamBenchInput = {
    mechanism: workflowMechanism(ctx.mechanism),
    changes: ctx.changes,
    gapMs: ctx.gapMs,
  };
  const ids: string[] = [];
  const watchers: Watcher[] = [];
  const waits: Promise<unknown>[] = [];
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(8, n) }, async () => {
      while (next < n) {
        const workflowId = `${ctx.taskQueue}-${tag}-${next++}`;
        const handle = await ctx.client.workflow.start<typeof streamBenchWorkflow>('streamBenchWorkflow', {
          workflowId,
          taskQueue: ctx.taskQueue,
          args: [input],
        });
        ids.push(workflowId);
        waits.push(handle.result());
        for (let s = 0; s < subscribers; s++) {
          const { watcher, done } = watch(ctx.feed, workflowId);
          watchers.push(watcher);
          waits.push(done);
        }
      }
    }),
  );
  return { ids, watchers, finished: Promise.allSettled(waits), startSeconds: (Date.now() - t0) / 1000 };
}

const EVENT_NAMES = temporal.api.enums.v1.EventType as unknown as Record<number, string | undefined>;

/** EVENT_TYPE_WORKFLOW_TASK_COMPLETED → WorkflowTaskCompleted. */
function eventName(type: number | null | undefined): string {
  const raw = EVENT_NAMES[type ?? 0] ?? `EVENT_${String(type)}`;
  return raw
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __: string, c: string) => c.toUpperCase());
}

/** Events of one workflow's history, by type, and `total`. */
async function historyCounts(client: Client, workflowId: string): Promise<Record<string, number>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const counts: Record<string, number> = { total: history.events?.length ?? 0 };
  for (const e of history.events ?? []) {
    const name = eventName(e.eventType);
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

export interface HistorySummary {
  workflows: number;
  /** Mean events per workflow, by type (`total` for all). */
  meanByType: Record<string, number>;
  minTotal: number;
  maxTotal: number;
}

export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

function latencySummary(latencies: number[]): LatencySummary {
  return {
    n: latencies.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    max: latencies.length ? Math.max(...latencies) : NaN,
  };
}

/** A history run's level: its histories, and the latency its subscribers saw (a light load). */
export type HistoryLevel = HistorySummary & { latencyMs: LatencySummary };

async function summarizeHistories(client: Client, ids: string[]): Promise<HistorySummary> {
  const all = await Promise.all(ids.map((id) => historyCounts(client, id)));
  const sums: Record<string, number> = {};
  for (const counts of all) for (const [k, v] of Object.entries(counts)) sums[k] = (sums[k] ?? 0) + v;
  const meanByType = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / all.length]));
  const totals = all.map((c) => c.total);
  return { workflows: all.length, meanByType, minTotal: Math.min(...totals), maxTotal: Math.max(...totals) };
}

/**
 * Waits for a run's subscribers and workflows; past `timeoutMs`, terminates its workflows (which
 * ends every mechanism's streams) so the next run starts clean. Returns whether it timed out.
 */
async function finish(ctx: RunContext, started: Started, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    started.finished.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (!timedOut) return false;
  ctx.say(`${ctx.mechanism}: not done after ${timeoutMs / 1000} s: terminating its workflows`);
  await Promise.all(
    started.ids.map((id) => settle(ctx.client.workflow.getHandle(id).terminate('stream bench: run timed out'))),
  );
  await Promise.race([started.finished, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  return true;
}

const settle = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    () => undefined,
  );

/** A run's time limit: the workflows' own time, plus two minutes. */
const limitMs = (ctx: RunContext) => ctx.changes * ctx.gapMs + 120_000;

/** A few short workflows nobody watches, so every mechanism's measurements start on a warm worker. */
export async function warmUp(ctx: RunContext, workflows: number): Promise<void> {
  const started = await startWatched({ ...ctx, changes: 1, gapMs: 0 }, workflows, 0, 'warm');
  await finish(ctx, started, 60_000);
}

/** History events per workflow with 0, 1 and 10 subscribers (`workflows` of each, run together). */
export async function historyRun(ctx: RunContext, workflows: number): Promise<Record<string, HistoryLevel>> {
  const out: Record<string, HistoryLevel> = {};
  for (const subscribers of [0, 1, 10]) {
    const started = await startWatched(ctx, workflows, subscribers, `h${subscribers}`);
    if (await finish(ctx, started, limitMs(ctx))) ctx.say(`${ctx.mechanism}: history run ${subscribers} timed out`);
    const level = {
      ...(await summarizeHistories(ctx.client, started.ids)),
      latencyMs: latencySummary(started.watchers.flatMap((w) => w.latencies)),
    };
    out[String(subscribers)] = level;
    ctx.say(`${ctx.mechanism}: ${subscribers} subscribers: ${level.meanByType.total} events/workflow`);
  }
  return out;
}

export interface LoadResult {
  workflows: number;
  subscribers: number;
  /** Not done within the limit: its workflows were terminated, the figures are of what it managed. */
  timedOut: boolean;
  seconds: number;
  startsPerSecond: number;
  /** Distinct versions received over all subscribers, of (changes + 1) × subscribers. */
  versionsReceived: number;
  versionsExpected: number;
  /** Subscribers that never saw the last change, or whose stream failed. */
  missedLast: number;
  failed: number;
  errors: string[];
  latencyMs: LatencySummary;
  bench: ProcessUse;
  worker: ProcessUse;
  server: ProcessUse;
  machine: { busyPercent: number; loadAverage1m: { start: number; end: number } };
  queriesPerSecond: number;
  updatesPerSecond: number;
  pushesPerSecond: number;
  history: HistorySummary;
}

export async function loadRun(ctx: RunContext, workflows: number, subscribers: number): Promise<LoadResult> {
  collectGarbage();
  const calls0 = { ...ctx.calls };
  const pushes0 = ctx.receiver.pushes;
  const meter = new Meter({ worker: ctx.workerPid, server: ctx.serverPid });
  const started = await startWatched(ctx, workflows, subscribers, 'load');
  const timedOut = await finish(ctx, started, limitMs(ctx));
  const use = meter.stop();
  const history = await summarizeHistories(ctx.client, started.ids);
  const latencies = started.watchers.flatMap((w) => w.latencies);
  const perSecond = (n: number) => n / use.seconds;
  return {
    workflows,
    subscribers: started.watchers.length,
    timedOut,
    seconds: use.seconds,
    startsPerSecond: workflows / started.startSeconds,
    versionsReceived: started.watchers.reduce((n, w) => n + w.received, 0),
    versionsExpected: started.watchers.length * (ctx.changes + 1),
    missedLast: started.watchers.filter((w) => !w.sawLast).length,
    failed: started.watchers.filter((w) => w.error !== undefined).length,
    errors: [...new Set(started.watchers.flatMap((w) => (w.error ? [w.error] : [])))].slice(0, 5),
    latencyMs: latencySummary(latencies),
    bench: use.processes.bench,
    worker: use.processes.worker,
    server: use.processes.server,
    machine: use.machine,
    queriesPerSecond: perSecond(ctx.calls.queries - calls0.queries),
    updatesPerSecond: perSecond(ctx.calls.updates - calls0.updates),
    pushesPerSecond: perSecond(ctx.receiver.pushes - pushes0),
    history,
  };
}
