/**
 * N pipelines through reelflow: worker process(es) of `node dist/workers/main.js`
 * (REELFLOW_* env, as a user runs them) against a fresh emulator process and the shared
 * Temporal dev server; every `videoPipeline` started at once with the client; then each
 * one's server-side start/close times and history size (summed over continue-as-new runs).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { codecDataConverter, codecEnv } from '../../src/codec';
import { freePort } from '../devstack/dev-server';
import type { PipelineResult } from '../../src/contract/messages';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import type { PriorityLevel } from '../../src/definition/schema';
import { startPriority } from '../../src/contract/tenancy';
import { historyCounts } from './history-counts';
import { mapPool } from './pool';
import {
  cpuOf,
  definitionsFor,
  machineWindow,
  profilingArgs,
  EMULATOR_ACCESS_TOKEN,
  EMULATOR_API_KEY,
  finishPhase,
  processUse,
  startEmulatorProcess,
  type Measured,
  type PhaseContext,
  type PhaseResult,
} from './phase';
import { spawnNode, type NodeProcess, type ProcStats, type Sampler } from './processes';
import { connectTemporal } from '../../src/config/temporal-connection';

/** Pipelines started together, `afterMs` after the run's start, as one tenant at one priority. */
export interface StartWave {
  count: number;
  afterMs: number;
  tenant?: string;
  priority?: PriorityLevel;
}

export interface ReelflowRunOptions {
  ctx: PhaseContext;
  /** Names the run's task queue, workflow ids and logs when one bench run holds several. */
  label?: string;
  /** The pipelines' start plan (their counts add up to ctx.n); absent: all ctx.n at once, no tenant. */
  waves?: StartWave[];
  temporal: { address: string; pid: number };
  workers: 1 | 2;
  getAssetRate?: number;
  /** Extra REELFLOW_* variables (tuning). */
  workerEnv?: Record<string, string>;
  sampler: Sampler;
  /** After the last pipeline ends, before the CPU sample: work the run still owes (a ledger settling). */
  beforeSample?: (client: Client) => Promise<void>;
  /** After the pipelines' histories are read, before the connection closes: reading what else the run left. */
  afterRun?: (client: Client) => Promise<void>;
}

async function startWorkers(opts: ReelflowRunOptions, emulatorUrl: string, taskQueue: string): Promise<NodeProcess[]> {
  const { ctx } = opts;
  const name = runName(opts);
  const secret = randomBytes(24).toString('hex');
  const workers: NodeProcess[] = [];
  for (let w = 1; w <= opts.workers; w++) {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: ctx.runDir, // no user temporal.toml can point the worker elsewhere
      TEMPORAL_ADDRESS: opts.temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      VENDOR_BASE_URL: emulatorUrl,
      VENDOR_IDENTITY_URL: emulatorUrl,
      REELFLOW_TASK_QUEUE: taskQueue,
      REELFLOW_PROFILES: 'default',
      REELFLOW_PROFILE_DEFAULT_API_KEY: EMULATOR_API_KEY,
      REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: EMULATOR_ACCESS_TOKEN,
      REELFLOW_ARCHIVE_DIR: path.join(ctx.runDir, `archive-reelflow-${name}`),
      REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves media on 127.0.0.1
    };
    if (opts.getAssetRate !== undefined) env.REELFLOW_GETASSET_RATE = String(opts.getAssetRate);
    // REELFLOW_CODEC_KEYS in the bench's environment: workers and client encrypt (its cost is measured).
    Object.assign(env, codecEnv(process.env), opts.workerEnv);
    // OTEL_EXPORTER_OTLP_ENDPOINT in the bench's environment: workers trace (the tracing bundle's cost).
    if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT)
      env.OTEL_EXPORTER_OTLP_ENDPOINT = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (ctx.callbacks) {
      const port = await freePort();
      Object.assign(env, {
        REELFLOW_CALLBACK_PORT: String(port),
        REELFLOW_CALLBACK_HOST: '127.0.0.1',
        REELFLOW_CALLBACK_BASE_URL: `http://127.0.0.1:${port}`,
        REELFLOW_CALLBACK_SECRET: secret,
      });
    }
    const proc = spawnNode({
      name: `worker ${w}`,
      script: path.join(ctx.root, 'dist', 'workers', 'main.js'),
      env,
      logFile: path.join(ctx.runDir, `worker${w}-${name}.log`),
      nodeArgs: profilingArgs(ctx, `worker${w}-${name}`),
    });
    workers.push(proc);
    // One at a time: the first may (re)build the workflow bundle.
    await proc.waitForLine(/"msg":"polling /, 180_000);
  }
  return workers;
}

type Started = { handle?: WorkflowHandleWithFirstExecutionRunId; error?: string };
/** A pipeline's end as awaited: its stage timings when it completed, else why not. */
type Waited = { ok: boolean; error?: string | undefined; timings: PipelineResult['timings'] };

/** The run's name in task queue, workflow ids and logs: the callback mode, after the label if any. */
const runName = (opts: ReelflowRunOptions) =>
  `${opts.label ? `${opts.label}-` : ''}${opts.ctx.callbacks ? 'on' : 'off'}`;

/** One pipeline's start, with its wave's tenant and priority in the definition and the start's keys. */
function startOne(
  client: Client,
  taskQueue: string,
  workflowId: string,
  definition: PipelineDefinitionInput,
  wave: StartWave,
): Promise<Started> {
  const { tenant, priority } = wave;
  const def: PipelineDefinitionInput =
    tenant || priority
      ? {
          ...definition,
          options: { ...definition.options, ...(tenant ? { tenant } : {}), ...(priority ? { priority } : {}) },
        }
      : definition;
  // What the product's client sets at start (pipelineStartFields): the workflow tasks' keys.
  const keys = startPriority(tenant, priority);
  return client.workflow
    .start('videoPipeline', {
      taskQueue,
      workflowId,
      args: [{ definition: def }],
      ...(keys ? { priority: keys } : {}),
    })
    .then(
      (h): Started => ({ handle: h }),
      (err: unknown): Started => ({ error: `start failed: ${(err as Error).message}` }),
    );
}

/** Every wave started at its time (all at once without waves); a start that fails is recorded, not thrown. */
async function startAll(
  client: Client,
  opts: ReelflowRunOptions,
  taskQueue: string,
  definitions: PipelineDefinitionInput[],
): Promise<Started[]> {
  const { ctx } = opts;
  const waves = opts.waves ?? [{ count: ctx.n, afterMs: 0 }];
  const t0 = Date.now();
  let next = 0;
  const groups = waves.map(async (wave) => {
    const from = next;
    next += wave.count;
    const wait = t0 + wave.afterMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (waves.length > 1)
      ctx.log(
        `  +${((Date.now() - t0) / 1000).toFixed(1)} s: starting ${wave.count} of ${wave.tenant ?? 'no tenant'} (${wave.priority ?? 'no priority'})`,
      );
    return Promise.all(
      definitions
        .slice(from, from + wave.count)
        .map((d, j) => startOne(client, taskQueue, `bench-${ctx.tag}-${runName(opts)}-p${from + j}`, d, wave)),
    );
  });
  return (await Promise.all(groups)).flat();
}

/** Progress from the visibility store every 15 s (results are awaited in order, so a local count would lag). */
function logProgress(client: Client, ctx: PhaseContext, taskQueue: string, t0: number): NodeJS.Timeout {
  return setInterval(() => {
    client.workflow
      .count(`WorkflowType = 'videoPipeline' AND TaskQueue = '${taskQueue}' AND ExecutionStatus != 'Running'`)
      .then(
        ({ count }) => ctx.log(`  ${count}/${ctx.n} finished after ${((Date.now() - t0) / 1000).toFixed(0)} s`),
        () => undefined,
      );
  }, 15_000);
}

/**
 * Rejects when a worker dies mid-run (e.g. out of memory), so the wait ends at once instead
 * of at the timeout; after stop(), an exit is expected and never settles it.
 */
function workerDeath(workers: NodeProcess[]): { died: Promise<never>; stop(): void } {
  let stopping = false;
  const died = Promise.race(
    workers.map((w) =>
      w.whenExited().then((code) => {
        if (stopping) return new Promise<never>(() => undefined);
        throw new Error(
          `${w.name} exited (${String(code)}) during the run; last output:\n${w.lastLines(20).join('\n')}`,
        );
      }),
    ),
  );
  died.catch(() => undefined);
  return { died, stop: () => (stopping = true) };
}

/** Each pipeline's result, or why not (a failed start, the --timeout deadline). */
function waitForResults(started: Started[], deadline: number): Promise<Waited[]> {
  return mapPool(started, 100, async (s): Promise<Waited> => {
    if (!s.handle) return { ok: false, error: s.error, timings: {} };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not finished within --timeout`)), Math.max(0, deadline - Date.now()));
    });
    try {
      const result = (await Promise.race([s.handle.result(), timeout])) as PipelineResult;
      return { ok: true, timings: result.timings };
    } catch (err) {
      return { ok: false, error: (err as Error).message, timings: {} };
    } finally {
      clearTimeout(timer);
    }
  });
}

/** Every pipeline's end, with progress lines; a worker's death ends the wait (what completed still counts). */
async function awaitAll(
  ctx: PhaseContext,
  client: Client,
  taskQueue: string,
  started: Started[],
  workers: NodeProcess[],
  t0: number,
): Promise<Waited[]> {
  const progress = logProgress(client, ctx, taskQueue, t0);
  const death = workerDeath(workers);
  try {
    return await Promise.race([waitForResults(started, t0 + ctx.timeoutMs), death.died]);
  } catch (err) {
    // A worker died: what completed counts, the rest failed (and is terminated by the caller).
    const why = (err as Error).message;
    ctx.log(`  ${why}`);
    return await mapPool(started, 32, async (s): Promise<Waited> => {
      if (!s.handle) return { ok: false, error: s.error, timings: {} };
      const d = await s.handle.describe();
      if (d.status.name !== 'COMPLETED') return { ok: false, error: why.split('\n')[0], timings: {} };
      return { ok: true, timings: ((await s.handle.result()) as PipelineResult).timings };
    });
  } finally {
    clearInterval(progress);
    death.stop();
  }
}

/** Per pipeline: server-side start (first run) to close (latest run), history size; and the last close. */
async function outcomesOf(client: Client, started: Started[], results: Waited[], t0: number) {
  let lastClose = t0;
  const outcomes: Measured['outcomes'] = await mapPool(started, 32, async (s, i) => {
    const r = results[i];
    if (!s.handle) return { ok: false, error: r.error, pipelineMs: NaN };
    const last = await s.handle.describe(); // the latest run: its close is the pipeline's
    const close = last.closeTime?.getTime() ?? NaN;
    if (close > lastClose) lastClose = close;
    const counts = await historyCounts(client, s.handle.workflowId, s.handle.firstExecutionRunId);
    const first = await client.workflow.getHandle(s.handle.workflowId, s.handle.firstExecutionRunId).describe();
    return {
      ok: r.ok,
      ...(r.error ? { error: r.error } : {}),
      pipelineMs: close - first.startTime.getTime(),
      startMs: first.startTime.getTime(),
      closeMs: close,
      stageMs: r.timings,
      historyEvents: counts.events,
      workflowTasks: counts.workflowTasks,
      taskTimeouts: counts.taskTimeouts,
      taskQueuedMs: counts.taskQueuedMs,
      taskRunningMs: counts.taskRunningMs,
      ...(counts.firstActivityMs !== undefined ? { firstActivityMs: counts.firstActivityMs } : {}),
      ...(counts.answerWaitMs !== undefined ? { answerWaitMs: counts.answerWaitMs } : {}),
      ...(counts.ledger ? { ledger: counts.ledger } : {}),
    };
  });
  return { outcomes, lastClose };
}

/** CPU and memory of the workers (processes) and of what ran beside them (context). */
function processUseOf(names: string[], before: Map<string, ProcStats>, after: Map<string, ProcStats>) {
  const use = (n: string) => processUse(n, before.get(n), after.get(n));
  return {
    processes: names.map(use),
    context: [use('temporal server'), use('emulator'), ...(before.has('postgresql') ? [use('postgresql')] : [])],
  };
}

export async function runReelflow(opts: ReelflowRunOptions): Promise<PhaseResult> {
  const { ctx, sampler } = opts;
  const mode = ctx.callbacks ? 'on' : 'off';
  const emulator = await startEmulatorProcess(ctx, `reelflow-${runName(opts)}`);
  let workers: NodeProcess[] = [];
  const connection = await connectTemporal({ address: opts.temporal.address });
  try {
    const dataConverter = codecDataConverter(process.env);
    const client = new Client({ connection, ...(dataConverter ? { dataConverter } : {}) });
    const definitions = await definitionsFor(ctx, emulator.url);
    await emulator.collector.forgetSetup();
    const taskQueue = `bench-${ctx.tag}-${runName(opts)}`;
    workers = await startWorkers(opts, emulator.url, taskQueue);
    const names = workers.map((w, i) => `reelflow worker ${i + 1}`);
    workers.forEach((w, i) => sampler.watch(names[i], w.pid));
    sampler.watch('emulator', emulator.proc.pid);
    const before = sampler.sample();
    const window = machineWindow();
    ctx.log(
      `reelflow, callbacks ${mode}: starting ${ctx.n} pipelines on ${taskQueue} (${workers.length} worker process${workers.length > 1 ? 'es' : ''})`,
    );

    const t0 = Date.now();
    const started = await startAll(client, opts, taskQueue, definitions);
    ctx.log(`  all started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const results = await awaitAll(ctx, client, taskQueue, started, workers, t0);
    await opts.beforeSample?.(client);
    const after = sampler.sample();

    // Whatever is still running after the timeout is stopped, so nothing outlives the bench.
    await mapPool(started, 32, async (s, i) => {
      if (s.handle && !results[i].ok) await s.handle.terminate('benchmark timeout').catch(() => undefined);
    });

    const { outcomes, lastClose } = await outcomesOf(client, started, results, t0);
    await opts.afterRun?.(client);
    const { processes, context } = processUseOf(names, before, after);
    const machineLoad = window.end(cpuOf([...processes, ...context]));
    const measured: Measured = {
      system: 'reelflow',
      wallMs: lastClose - t0,
      outcomes,
      processes,
      context,
      ...(machineLoad ? { machineLoad } : {}),
    };
    return await finishPhase(ctx, emulator, measured);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await emulator.proc.stop();
    await connection.close();
  }
}
