/**
 * The standalone receiver process (dist/callbacks/main.js, built by `npm test`):
 * started against the real dev server it relays a callback; with nothing listening at
 * the Temporal address it says which address it tried (one JSON log line) and exits 1,
 * without a stack.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildCallbackUrl } from '../../src/callbacks/token';
import { startStandaloneReceiver, TemporalUnreachableError } from '../../src/callbacks/main';
import { freePort } from '../support/http-server';
import { startTestWorker } from './test-worker';

const MAIN = path.resolve(__dirname, '../../dist/callbacks/main.js');
const SECRET = 'standalone-test-secret-0123456789';

function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('Temporal down: the process names the address it tried and exits 1, no gRPC stack', async () => {
  const address = `127.0.0.1:${await freePort()}`; // nothing listens there
  const { code, stdout, stderr } = await run({
    TEMPORAL_ADDRESS: address,
    REELFLOW_CALLBACK_SECRET: SECRET,
    REELFLOW_CALLBACK_HOST: '127.0.0.1',
    REELFLOW_CALLBACK_PORT: '0',
  });
  expect(code).toBe(1);
  // One JSON line on stdout says why (src/telemetry/logger.ts); nothing on stderr.
  expect(stderr).toBe('');
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0]) as { level: string; name: string; msg: string };
  expect(line).toMatchObject({ level: 'fatal', name: 'reelflow-callbacks' });
  expect(line.msg).toMatch(
    new RegExp(`^cannot reach Temporal at ${address} \\(.+\\); start it, or set TEMPORAL_ADDRESS`),
  );
  expect(line.msg).not.toMatch(/\n\s+at /);
  expect(stderr + stdout).not.toContain(SECRET);
});

test('Temporal up: the standalone receiver relays a callback to a workflow', async () => {
  const address = process.env.TEMPORAL_ADDRESS!;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = `standalone-${process.pid}-${Date.now()}`;
  const tw = await startTestWorker(taskQueue);
  const logs: string[] = [];
  const standalone = await startStandaloneReceiver({
    env: {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      REELFLOW_CALLBACK_SECRET: SECRET,
      REELFLOW_CALLBACK_HOST: '127.0.0.1',
      REELFLOW_CALLBACK_PORT: '0',
    },
    log: (l) => logs.push(l),
  });
  try {
    const { client } = tw;
    const workflowId = `${taskQueue}.wf`;
    const handle = await client.workflow.start('awaitCallbackWorkflow', {
      taskQueue,
      workflowId,
      workflowExecutionTimeout: '2m',
    });
    const url = buildCallbackUrl(standalone.receiver.url, SECRET, workflowId, 'generation', 1);
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ id: 'g-1', status: 'running' }) });
    expect(res.status).toBe(204);
    expect(await handle.result()).toEqual({ step: 'generation', attempt: 1, taskId: 'g-1', status: 'running' });
    expect((JSON.parse(logs[0]) as { msg: string }).msg).toMatch(
      new RegExp(`^listening on 127\\.0\\.0\\.1:\\d+; signalling workflows in namespace ${namespace} at ${address}$`),
    );
  } finally {
    await standalone.close();
    await tw.close();
  }
});

test('in-process start with Temporal down rejects with TemporalUnreachableError naming the address', async () => {
  const address = `127.0.0.1:${await freePort()}`; // nothing listens there
  const err = await startStandaloneReceiver({
    env: {
      TEMPORAL_ADDRESS: address,
      REELFLOW_CALLBACK_SECRET: SECRET,
      REELFLOW_CALLBACK_HOST: '127.0.0.1',
      REELFLOW_CALLBACK_PORT: '0',
    },
    log: () => undefined,
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TemporalUnreachableError);
  expect((err as TemporalUnreachableError).address).toBe(address);
  expect((err as Error).message).toContain(`cannot reach Temporal at ${address}`);
});
