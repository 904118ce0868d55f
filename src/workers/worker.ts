/**
 * The reelflow workers of one process:
 *
 * - the main worker on `taskQueue`: every workflow and every activity;
 * - one worker PER CREDENTIAL PROFILE on `getAssetTaskQueue(taskQueue, profile)` that
 *   registers only `getAsset`, with `maxTaskQueueActivitiesPerSecond`.
 *
 * Why a task queue per profile: the vendor allows 10 GetAsset per second per access
 * token (a profile holds one token), counted across ALL our workers. A limiter inside
 * this process cannot see the other processes. `maxTaskQueueActivitiesPerSecond` is
 * different: the worker sends it with each poll and the Temporal server's matching
 * service enforces it for the whole task queue, so N worker processes together still
 * dispatch at most that many GetAsset activities per second (retries included). Every
 * worker polling a queue must use the same value (the last poller's value wins), which
 * is why it comes from one variable, REELFLOW_GETASSET_RATE. A server with several
 * partitions splits it between them, which only makes it stricter.
 *
 * The server's limit is right on average but bursts (a second's worth at once), so each
 * process also spaces its own GetAsset calls, its share of the rate apart, right before
 * the HTTP call (./getasset-pacer.ts): that is what keeps every 1-s vendor window exact.
 */
import os from 'node:os';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { GetAssetPacer, type PollerSeen } from './getasset-pacer';
import { getAssetTaskQueue } from '../contract/messages';
import { defaultWorkflowsPath, defaultBundlePath, isBundleFresh } from './bundle';
import { DEFAULT_ISOLATE_EXECUTION_TIMEOUT_SECONDS, type WorkerConfig } from './config';

type ActivityFn = (...args: never[]) => Promise<unknown>;

export interface ReelflowWorkersOptions {
  connection: NativeConnection;
  /** Default "default". */
  namespace?: string;
  config: Pick<
    WorkerConfig,
    | 'taskQueue'
    | 'profiles'
    | 'getAssetRatePerSecond'
    | 'maxConcurrentActivities'
    | 'maxConcurrentWorkflowTasks'
    | 'maxCachedWorkflows'
  > &
    Partial<Pick<WorkerConfig, 'isolateExecutionTimeoutSeconds'>>;
  /** All activities (createActivities(deps)); must include `getAsset`. */
  activities: Record<string, ActivityFn>;
  /**
   * Workflow code. Default: the prebuilt dist/workflow-bundle.js when fresh (the bundle with
   * the data converter's failureConverterPath and payloadConverterPath when it has them), else
   * the workflows module (bundled in memory by the SDK at start, with those converters). A
   * bundle given here must have been built with the same converter paths.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  workflowsPath?: string;
  /** Extra options for every worker (interceptors, shutdownGraceTime, identity, ...). */
  workerOptions?: Partial<
    Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath'>
  >;
  log?: (line: string, level?: 'warn' | 'error') => void;
}

export interface ReelflowWorker {
  taskQueue: string;
  role: 'main' | 'getAsset';
  profile?: string;
  worker: Worker;
}

export interface ReelflowWorkers {
  workers: ReelflowWorker[];
  /** Runs every worker; resolves when all have stopped, rejects with the first failure (the others are stopped). */
  run(): Promise<void>;
  /** Starts a graceful shutdown of every worker (idempotent). */
  shutdown(): void;
}

/** Concurrency of each GetAsset worker: the server's rate limit, not this, is what binds. */
const GETASSET_WORKER_CONCURRENCY = 10;

function workflowSource(
  opts: ReelflowWorkersOptions,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> & { described: string } {
  if (opts.workflowBundle) {
    const b = opts.workflowBundle;
    return { workflowBundle: b, described: 'codePath' in b ? `bundle ${b.codePath}` : 'given bundle' };
  }
  if (opts.workflowsPath) return { workflowsPath: opts.workflowsPath, described: opts.workflowsPath };
  // The sandbox must convert failures and payloads as the activities do (the codec's converters): its own bundle.
  const { failureConverterPath, payloadConverterPath } = opts.workerOptions?.dataConverter ?? {};
  const variant = {
    ...(failureConverterPath ? { failureConverterPath } : {}),
    ...(payloadConverterPath ? { payloadConverterPath } : {}),
  };
  if (isBundleFresh(variant)) {
    const codePath = defaultBundlePath(variant);
    return { workflowBundle: { codePath }, described: `prebuilt ${codePath}` };
  }
  const workflowsPath = defaultWorkflowsPath();
  return { workflowsPath, described: `${workflowsPath} (bundled at start)` };
}

/** Pollers the server has seen on a GetAsset queue (identity and last poll time). */
async function describePollers(c: NativeConnection, namespace: string, taskQueue: string): Promise<PollerSeen[]> {
  const res = await c.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (res.pollers ?? []).map((p) => ({ identity: p.identity ?? '', lastAccessMs: tsToMs(p.lastAccessTime) }));
}

/** Runs and stops the workers together: one that stops for any reason (or fails) stops the others. */
function runTogether(
  created: ReelflowWorker[],
  pacer: GetAssetPacer,
  profiles: string[],
  log: NonNullable<ReelflowWorkersOptions['log']>,
): Pick<ReelflowWorkers, 'run' | 'shutdown'> {
  let stopRequested = false;
  function shutdown(): void {
    stopRequested = true;
    pacer.stop();
    for (const { worker } of created) {
      if (worker.getState() === 'RUNNING') {
        try {
          worker.shutdown();
        } catch {
          // already stopping
        }
      }
    }
  }

  async function run(): Promise<void> {
    if (stopRequested) return;
    pacer.start(profiles);
    let firstError: Error | undefined;
    const runs = created.map(({ worker, taskQueue }) =>
      worker.run().catch((err: unknown) => {
        firstError ??= err instanceof Error ? err : new Error(String(err));
        log(
          `worker on ${taskQueue} failed: ${err instanceof Error ? err.message : String(err)}; stopping the others`,
          'error',
        );
        shutdown();
      }),
    );
    // A worker that stops for any reason stops the rest: a process half-serving is worse.
    for (const r of runs) void r.then(shutdown);
    if (stopRequested) shutdown();
    await Promise.all(runs);
    if (firstError !== undefined) throw firstError;
  }

  return { run, shutdown };
}

export async function createReelflowWorkers(opts: ReelflowWorkersOptions): Promise<ReelflowWorkers> {
  const { connection, config, activities } = opts;
  const namespace = opts.namespace ?? 'default';
  const log = opts.log ?? (() => undefined);
  const getAsset = activities.getAsset as ((input: { profile?: string }) => Promise<unknown>) | undefined;
  if (typeof getAsset !== 'function') {
    throw new TypeError('createReelflowWorkers: activities must include getAsset (it runs on the per-profile queues)');
  }
  const { described, ...source } = workflowSource(opts);
  const extra = opts.workerOptions ?? {};
  // The pacer counts processes by poller identity: this one must be known and distinct.
  const identity = extra.identity ?? `${process.pid}@${os.hostname()}`;
  const pacer = new GetAssetPacer({
    ratePerSecond: config.getAssetRatePerSecond,
    identity,
    describe: (profile) => describePollers(connection, namespace, getAssetTaskQueue(config.taskQueue, profile)),
    log,
  });
  await pacer.refresh(config.profiles);
  const pacedGetAsset = pacer.wrap(getAsset);

  const created: ReelflowWorker[] = [];
  created.push({
    taskQueue: config.taskQueue,
    role: 'main',
    worker: await Worker.create({
      ...extra,
      connection,
      namespace,
      taskQueue: config.taskQueue,
      ...source,
      activities,
      maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities,
      maxConcurrentWorkflowTaskExecutions: config.maxConcurrentWorkflowTasks,
      ...(config.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: config.maxCachedWorkflows } : {}),
      ...isolateTimeout(config.isolateExecutionTimeoutSeconds ?? DEFAULT_ISOLATE_EXECUTION_TIMEOUT_SECONDS),
    }),
  });
  log(`task queue ${config.taskQueue}: workflows (${described}) and ${Object.keys(activities).length} activities`);
  for (const profile of config.profiles) {
    const taskQueue = getAssetTaskQueue(config.taskQueue, profile);
    created.push({
      taskQueue,
      role: 'getAsset',
      profile,
      worker: await Worker.create({
        ...extra,
        connection,
        namespace,
        identity,
        taskQueue,
        activities: { getAsset: pacedGetAsset },
        maxConcurrentActivityTaskExecutions: Math.min(GETASSET_WORKER_CONCURRENCY, config.maxConcurrentActivities),
        // Enforced by the Temporal server for this queue across all workers; see the module comment.
        maxTaskQueueActivitiesPerSecond: config.getAssetRatePerSecond,
      }),
    });
    log(
      `task queue ${taskQueue}: getAsset for profile ${profile}, at most ${config.getAssetRatePerSecond}/s ` +
        `(server-enforced; calls spaced ${Math.round(pacer.intervalMs(profile))} ms apart in this process)`,
    );
  }

  return { workers: created, ...runTogether(created, pacer, config.profiles, log) };
}

/**
 * The SDK's limit on one workflow activation (5 s), which its typings do not expose yet but its
 * option compiler passes through. A starved machine reaches 5 s with healthy workflows, and a
 * stop inside the activation's microtasks aborts the worker process (docs/deploy.md,
 * REELFLOW_ISOLATE_EXECUTION_TIMEOUT); test/workers/worker.test.ts checks the SDK still takes it.
 */
function isolateTimeout(seconds: number): Partial<WorkerOptions> {
  return { isolateExecutionTimeout: `${seconds}s` } as Partial<WorkerOptions>;
}
