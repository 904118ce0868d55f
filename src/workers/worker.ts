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
 * is why it comes from one variable, REELFLOW_GETASSET_RATE. The rate is exact when the
 * queue has one partition (the dev stack sets this; see DEV_DYNAMIC_CONFIG); a server
 * with several partitions splits it between them, which only makes it stricter.
 */
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { getAssetTaskQueue } from '../workflows/messages';
import { defaultWorkflowsPath, defaultBundlePath, isBundleFresh } from './bundle';
import type { WorkerConfig } from './config';

type ActivityFn = (...args: never[]) => Promise<unknown>;

export interface ReelflowWorkersOptions {
  connection: NativeConnection;
  /** Default "default". */
  namespace?: string;
  config: Pick<
    WorkerConfig,
    'taskQueue' | 'profiles' | 'getAssetRatePerSecond' | 'maxConcurrentActivities' | 'maxConcurrentWorkflowTasks'
  >;
  /** All activities (createActivities(deps)); must include `getAsset`. */
  activities: Record<string, ActivityFn>;
  /**
   * Workflow code. Default: the prebuilt dist/workflow-bundle.js when fresh, else the
   * workflows module (bundled in memory by the SDK at start).
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  workflowsPath?: string;
  /** Extra options for every worker (interceptors, shutdownGraceTime, identity, ...). */
  workerOptions?: Partial<
    Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath'>
  >;
  log?: (line: string) => void;
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
  if (isBundleFresh()) {
    const codePath = defaultBundlePath();
    return { workflowBundle: { codePath }, described: `prebuilt ${codePath}` };
  }
  const workflowsPath = defaultWorkflowsPath();
  return { workflowsPath, described: `${workflowsPath} (bundled at start)` };
}

export async function createReelflowWorkers(opts: ReelflowWorkersOptions): Promise<ReelflowWorkers> {
  const { connection, config, activities } = opts;
  const namespace = opts.namespace ?? 'default';
  const log = opts.log ?? (() => undefined);
  const getAsset = activities.getAsset;
  if (typeof getAsset !== 'function') {
    throw new TypeError('createReelflowWorkers: activities must include getAsset (it runs on the per-profile queues)');
  }
  const { described, ...source } = workflowSource(opts);
  const extra = opts.workerOptions ?? {};

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
        taskQueue,
        activities: { getAsset },
        maxConcurrentActivityTaskExecutions: Math.min(GETASSET_WORKER_CONCURRENCY, config.maxConcurrentActivities),
        // Enforced by the Temporal server for this queue across all workers; see the module comment.
        maxTaskQueueActivitiesPerSecond: config.getAssetRatePerSecond,
      }),
    });
    log(
      `task queue ${taskQueue}: getAsset for profile ${profile}, at most ${config.getAssetRatePerSecond}/s (server-enforced)`,
    );
  }

  let stopRequested = false;
  function shutdown(): void {
    stopRequested = true;
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
    let firstError: Error | undefined;
    const runs = created.map(({ worker, taskQueue }) =>
      worker.run().catch((err: unknown) => {
        firstError ??= err instanceof Error ? err : new Error(String(err));
        log(`worker on ${taskQueue} failed: ${err instanceof Error ? err.message : String(err)}; stopping the others`);
        shutdown();
      }),
    );
    // A worker that stops for any reason stops the rest: a process half-serving is worse.
    for (const r of runs) void r.then(shutdown);
    if (stopRequested) shutdown();
    await Promise.all(runs);
    if (firstError !== undefined) throw firstError;
  }

  return { workers: created, run, shutdown };
}
