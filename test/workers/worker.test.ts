/**
 * createReelflowWorkers on the real dev server: workflows and activities on the main
 * queue, GetAsset on one queue per profile with the server-side rate limit.
 */
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { createReelflowWorkers } from '../../src/workers/worker';
import { getAssetTaskQueue } from '../../src/contract/messages';
import { connectTemporal } from '../../src/config/temporal-connection';

const address = process.env.TEMPORAL_ADDRESS!;
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';

let nativeConnection: NativeConnection;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  nativeConnection = await NativeConnection.connect({ address });
  connection = await connectTemporal({ address });
  client = new Client({ connection, namespace });
});
afterAll(async () => {
  await connection?.close();
  await nativeConnection?.close();
});

// Activities return promises; these two answer at once, with the queue they ran on.
const activities = {
  getAsset: (_input: { profile: string; id: string }): Promise<string> =>
    Promise.resolve(Context.current().info.taskQueue),
  whereAmI: (): Promise<string> => Promise.resolve(Context.current().info.taskQueue),
};

function config(taskQueue: string) {
  return {
    taskQueue,
    profiles: ['alpha', 'beta'],
    getAssetRatePerSecond: 3,
    maxConcurrentActivities: 4,
    maxConcurrentWorkflowTasks: 2,
  };
}

test('main queue runs workflows and activities; GetAsset runs on the per-profile queue, rate-limited by the server', async () => {
  const taskQueue = `workers-${process.pid}-${Date.now()}`;
  const logs: string[] = [];
  const workers = await createReelflowWorkers({
    connection: nativeConnection,
    namespace,
    config: config(taskQueue),
    activities,
    workflowsPath: require.resolve('./worker-workflows'),
    log: (l) => logs.push(l),
  });
  expect(workers.workers.map((w) => [w.role, w.taskQueue, w.profile])).toEqual([
    ['main', taskQueue, undefined],
    ['getAsset', getAssetTaskQueue(taskQueue, 'alpha'), 'alpha'],
    ['getAsset', getAssetTaskQueue(taskQueue, 'beta'), 'beta'],
  ]);
  // The SDK takes the activation limit its typings do not expose (src/workers/worker.ts, isolateTimeout).
  expect(workers.workers[0].worker.options.isolateExecutionTimeoutMs).toBe(30_000);
  const running = workers.run();
  try {
    const result = await client.workflow.execute('taskQueuesWorkflow', {
      taskQueue,
      workflowId: `${taskQueue}.wf`,
      args: ['beta'],
    });
    expect(result).toEqual({ main: taskQueue, getAsset: getAssetTaskQueue(taskQueue, 'beta') });

    // The server knows the rate limit the GetAsset workers asked for: it enforces it.
    const described = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: {
        name: getAssetTaskQueue(taskQueue, 'beta'),
        kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
      },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      reportConfig: true,
    });
    expect(described.pollers?.length).toBeGreaterThan(0);
    expect(described.effectiveRateLimit?.requestsPerSecond).toBeCloseTo(3);
    expect(described.effectiveRateLimit?.rateLimitSource).toBe(
      temporal.api.enums.v1.RateLimitSource.RATE_LIMIT_SOURCE_WORKER,
    );
    // The alpha queue is polled too, though nothing ran there.
    const alpha = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: {
        name: getAssetTaskQueue(taskQueue, 'alpha'),
        kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
      },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    expect(alpha.pollers?.length).toBeGreaterThan(0);
  } finally {
    workers.shutdown();
    workers.shutdown(); // idempotent
    await running;
  }
  expect(workers.workers.map((w) => w.worker.getState())).toEqual(['STOPPED', 'STOPPED', 'STOPPED']);
  expect(logs.join('\n')).toMatch(/getAsset for profile beta, at most 3\/s/);
});

test('REELFLOW_ISOLATE_EXECUTION_TIMEOUT reaches the SDK as the limit on one workflow activation', async () => {
  const workers = await createReelflowWorkers({
    connection: nativeConnection,
    namespace,
    config: { ...config(`limit-${process.pid}-${Date.now()}`), isolateExecutionTimeoutSeconds: 90 },
    activities,
    workflowsPath: require.resolve('./worker-workflows'),
    log: () => undefined,
  });
  expect(workers.workers[0].worker.options.isolateExecutionTimeoutMs).toBe(90_000);
  const running = workers.run();
  workers.shutdown();
  await running;
});

test('activities without getAsset are refused', async () => {
  await expect(
    createReelflowWorkers({
      connection: nativeConnection,
      namespace,
      config: config('unused'),
      activities: { whereAmI: activities.whereAmI },
      workflowsPath: require.resolve('./worker-workflows'),
    }),
  ).rejects.toThrow(/getAsset/);
});
