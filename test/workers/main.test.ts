/**
 * The worker process entry, started in-process against the real dev server: workers,
 * the callback receiver, graceful shutdown; and its startup errors.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { buildCallbackUrl } from '../../src/callbacks/token';
import { activityDeps, startWorkerProcess } from '../../src/workers/main';
import { loadWorkerConfig } from '../../src/workers/config';
import { getAssetTaskQueue } from '../../src/contract/messages';
import { connectTemporal } from '../../src/config/temporal-connection';

const address = process.env.TEMPORAL_ADDRESS!;
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const CALLBACK_SECRET = 'main-test-callback-secret-abcdef';
const API_KEY = 'sk-main-test-api-key-never-logged';
const ACCESS_TOKEN = 'at-main-test-access-token-never-logged';
const ARCHIVE_TOKEN = 'main-test-archive-token-never-logged';

function baseEnv(taskQueue: string): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    REELFLOW_TASK_QUEUE: taskQueue,
    REELFLOW_PROFILES: 'default,other',
    REELFLOW_PROFILE_DEFAULT_API_KEY: API_KEY,
    REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: ACCESS_TOKEN,
    REELFLOW_PROFILE_OTHER_ACCESS_TOKEN: ACCESS_TOKEN,
    VENDOR_BASE_URL: 'http://127.0.0.1:9/base',
    VENDOR_IDENTITY_URL: 'http://127.0.0.1:9/identity',
    // No vendor listens here: its start-up checks fail, and the worker is told to start anyway.
    REELFLOW_STRICT_START: '0',
    REELFLOW_ARCHIVE_DIR: mkdtempSync(path.join(os.tmpdir(), 'reelflow-main-')),
    REELFLOW_CALLBACK_BASE_URL: 'https://hooks.example.com/rf',
    REELFLOW_CALLBACK_SECRET: CALLBACK_SECRET,
    REELFLOW_CALLBACK_PORT: '0',
    REELFLOW_CALLBACK_HOST: '127.0.0.1',
  };
}

test('starts the workers, the receiver and the archive server from the environment; a callback reaches a workflow; shutdown closes all', async () => {
  const taskQueue = `main-${process.pid}-${Date.now()}`;
  const logs: string[] = [];
  const archive = {
    REELFLOW_ARCHIVE_TOKEN: ARCHIVE_TOKEN,
    REELFLOW_ARCHIVE_PORT: '0',
    REELFLOW_ARCHIVE_HOST: '127.0.0.1',
  };
  const w = await startWorkerProcess({
    env: { ...baseEnv(taskQueue), ...archive },
    workflowsPath: require.resolve('../callbacks/callback-workflows'),
    log: (l) => logs.push(l),
  });
  const connection = await connectTemporal({ address });
  try {
    expect(w.namespace).toBe(namespace);
    expect(w.taskQueues).toEqual([
      taskQueue,
      getAssetTaskQueue(taskQueue, 'default'),
      getAssetTaskQueue(taskQueue, 'other'),
    ]);
    expect(w.receiverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${w.receiverUrl}/healthz`)).status).toBe(200);
    expect(w.archiveUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const bearer = { headers: { authorization: `Bearer ${ARCHIVE_TOKEN}` } };
    expect((await fetch(`${w.archiveUrl}/archive`, bearer)).status).toBe(204);

    const client = new Client({ connection, namespace });
    const workflowId = `${taskQueue}.wf`;
    const handle = await client.workflow.start('awaitCallbackWorkflow', { taskQueue, workflowId });
    const url = buildCallbackUrl(w.receiverUrl!, CALLBACK_SECRET, workflowId, 'generation', 1);
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ id: 'g1', status: 'running' }) });
    // Taken: 204 once signalled, or 202 when a loaded machine takes longer than the receiver's
    // answerWithinMs to judge and signal it (docs/operations.md, "Callbacks"); the result shows delivery.
    expect([202, 204]).toContain(res.status);
    expect(await handle.result()).toEqual({ step: 'generation', attempt: 1, taskId: 'g1', status: 'running' });
  } finally {
    w.shutdown();
    await w.done;
    await connection.close();
  }
  await expect(fetch(`${w.receiverUrl}/healthz`)).rejects.toThrow();
  await expect(fetch(`${w.archiveUrl}/healthz`)).rejects.toThrow();

  const all = logs.join('\n');
  expect(all).toContain(`connected to Temporal at ${address}, namespace ${namespace}`);
  expect(all).toContain(`polling ${taskQueue}, ${getAssetTaskQueue(taskQueue, 'default')}`);
  expect(all).toMatch(/callback receiver listening on 127\.0\.0\.1:\d+/);
  expect(all).toMatch(/archive server listening on 127\.0\.0\.1:\d+/);
  for (const secret of [CALLBACK_SECRET, API_KEY, ACCESS_TOKEN, ARCHIVE_TOKEN]) expect(all).not.toContain(secret);
  expect(all).not.toMatch(/[0-9a-f]{32}/); // no callback token
});

test('callback URLs for activities come from the configured base and secret; unknown profiles are refused by name', () => {
  const env = baseEnv('tq');
  const config = loadWorkerConfig(env);
  const deps = activityDeps(config, new Map());
  expect(deps.callbackUrlFor!('wf-1', 'review-b0', 2)).toBe(
    buildCallbackUrl('https://hooks.example.com/rf', CALLBACK_SECRET, 'wf-1', 'review-b0', 2),
  );
  expect(deps.archiveRoot).toBe(env.REELFLOW_ARCHIVE_DIR);
  expect(() => deps.vendorFor('nope')).toThrow(
    /profile "nope" is not served by this worker: add it to REELFLOW_PROFILES/,
  );

  const { REELFLOW_CALLBACK_BASE_URL: _b, REELFLOW_CALLBACK_PORT: _p, ...noCallbacks } = env;
  expect(activityDeps(loadWorkerConfig(noCallbacks), new Map()).callbackUrlFor).toBeUndefined();
});

test.each<[string, (env: Record<string, string>) => void, RegExp]>([
  ['vendor address missing', (e) => delete e.VENDOR_BASE_URL, /VENDOR_BASE_URL is required/],
  [
    'profile without credentials',
    (e) => (e.REELFLOW_PROFILES = 'default,empty'),
    /REELFLOW_PROFILE_EMPTY_API_KEY nor REELFLOW_PROFILE_EMPTY_ACCESS_TOKEN is set/,
  ],
  [
    'short callback secret',
    (e) => (e.REELFLOW_CALLBACK_SECRET = 'short-secret'),
    /REELFLOW_CALLBACK_SECRET must be at least 16/,
  ],
])('startup refuses: %s, naming the variable and no secret', async (_, change, rule) => {
  const env = baseEnv('never-started');
  change(env);
  const err = await startWorkerProcess({ env, log: () => undefined }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(err?.message).toMatch(rule);
  for (const secret of [CALLBACK_SECRET, API_KEY, ACCESS_TOKEN, 'short-secret'])
    expect(err?.message).not.toContain(secret);
});

test.each(['SIGTERM', 'SIGINT'] as const)('%s drains the worker, closes the receiver and exits 0', async (signal) => {
  const taskQueue = `main-${signal}-${process.pid}-${Date.now()}`;
  const child = spawn(process.execPath, [path.join(__dirname, 'worker-process-child.js')], {
    env: { ...process.env, ...baseEnv(taskQueue) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!/READY /.test(stdout) && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const receiverUrl = /READY (\S+)/.exec(stdout)?.[1];
  expect(receiverUrl).toBeDefined();
  expect((await fetch(`${receiverUrl}/healthz`)).status).toBe(200);

  child.kill(signal);
  expect(await exited).toBe(0);
  expect(stdout).toContain('STOPPED');
  await expect(fetch(`${receiverUrl}/healthz`)).rejects.toThrow();
  for (const secret of [CALLBACK_SECRET, API_KEY, ACCESS_TOKEN]) expect(stderr + stdout).not.toContain(secret);
});
