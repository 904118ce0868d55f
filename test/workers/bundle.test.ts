/** The prebuilt workflow bundle: built when missing, reused when fresh, rebuilt when a source changes, and runnable. */
import { Context } from '@temporalio/activity';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAILURE_CONVERTER_PATH, PAYLOAD_CONVERTER_PATH } from '../../src/codec';
import { defaultBundlePath, ensureWorkflowBundle, isBundleFresh } from '../../src/workers/bundle';
import { createReelflowWorkers } from '../../src/workers/worker';
import { getAssetTaskQueue } from '../../src/contract/messages';
import { connectTemporal } from '../../src/config/temporal-connection';

test('ensureWorkflowBundle builds, reuses, rebuilds on change; a worker runs workflows from the bundle', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-bundle-'));
  const sourceRoot = path.join(dir, 'src');
  const watched = path.join(sourceRoot, 'module.ts');
  mkdirSync(sourceRoot);
  writeFileSync(watched, 'export const a = 1;\n');
  const paths = {
    workflowsPath: require.resolve('./worker-workflows'),
    outFile: path.join(dir, 'dist', 'workflow-bundle.js'),
    sourceRoot,
  };
  const logs: string[] = [];
  const log = (l: string) => logs.push(l);

  expect(isBundleFresh(paths)).toBe(false);
  const first = await ensureWorkflowBundle({ ...paths, log });
  expect(first).toEqual({ codePath: paths.outFile, built: true });
  expect(readFileSync(paths.outFile, 'utf8')).toContain('taskQueuesWorkflow');
  expect(JSON.parse(readFileSync(`${paths.outFile}.json`, 'utf8'))).toMatchObject({
    workflowsPath: paths.workflowsPath,
  });
  expect(isBundleFresh(paths)).toBe(true);
  expect(await ensureWorkflowBundle({ ...paths, log })).toEqual({ codePath: paths.outFile, built: false });
  // Tracing and a failure converter make other bundles: their own default paths, never this one's fingerprint.
  const failureConverterPath = FAILURE_CONVERTER_PATH;
  for (const variant of [{ tracing: true }, { failureConverterPath }, { tracing: true, failureConverterPath }])
    expect(isBundleFresh({ ...paths, ...variant })).toBe(false);
  const names = [{}, { tracing: true }, { failureConverterPath }, { tracing: true, failureConverterPath }].map((v) =>
    path.basename(defaultBundlePath(v)),
  );
  expect(names).toEqual([
    'workflow-bundle.js',
    'workflow-bundle-tracing.js',
    'workflow-bundle.failure-converter.js',
    'workflow-bundle-tracing.failure-converter.js',
  ]);
  // The codec's variant bundles its payload converter too (strict mode's marks): a name, and a fingerprint, of its own.
  const codecVariant = { failureConverterPath, payloadConverterPath: PAYLOAD_CONVERTER_PATH };
  expect(path.basename(defaultBundlePath(codecVariant))).toBe('workflow-bundle.failure-converter.payload-converter.js');
  expect(isBundleFresh({ ...paths, ...codecVariant })).toBe(false);

  writeFileSync(watched, 'export const a = 22;\n');
  expect(isBundleFresh(paths)).toBe(false);
  expect(isBundleFresh({ ...paths, workflowsPath: require.resolve('../callbacks/callback-workflows') })).toBe(false);
  expect((await ensureWorkflowBundle({ ...paths, log })).built).toBe(true);
  expect(logs.some((l) => l.includes('stale'))).toBe(true);
  expect(existsSync(`${paths.outFile}.${process.pid}.tmp`)).toBe(false);

  // The bundle runs.
  const address = process.env.TEMPORAL_ADDRESS!;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = `bundle-${process.pid}-${Date.now()}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await connectTemporal({ address });
  try {
    const here = (): Promise<string> => Promise.resolve(Context.current().info.taskQueue);
    const workers = await createReelflowWorkers({
      connection: nativeConnection,
      namespace,
      config: {
        taskQueue,
        profiles: ['p'],
        getAssetRatePerSecond: 5,
        maxConcurrentActivities: 2,
        maxConcurrentWorkflowTasks: 2,
      },
      activities: { getAsset: here, whereAmI: here },
      workflowBundle: { codePath: paths.outFile },
    });
    const result = await Promise.all([
      new Client({ connection, namespace }).workflow
        .execute('taskQueuesWorkflow', { taskQueue, workflowId: `${taskQueue}.wf`, args: ['p'] })
        .finally(() => workers.shutdown()),
      workers.run(),
    ]);
    expect(result[0]).toEqual({ main: taskQueue, getAsset: getAssetTaskQueue(taskQueue, 'p') });
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
});
