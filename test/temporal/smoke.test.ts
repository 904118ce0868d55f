/**
 * Smoke test of the test stack itself: the dev server started by the global setup runs
 * a trivial workflow on a real worker, and our search attributes are registered.
 */
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { REELFLOW_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { connectTemporal } from '../../src/config/temporal-connection';

const address = process.env.TEMPORAL_ADDRESS!;

test('a trivial workflow runs on a real worker against the dev server', async () => {
  const taskQueue = `smoke-${Date.now()}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('./smoke-workflows'),
    activities: { greet: (name: string) => Promise.resolve(`hello ${name}`) },
  });
  const connection = await connectTemporal({ address });
  try {
    const client = new Client({ connection });
    const result = await worker.runUntil(
      client.workflow.execute('smokeWorkflow', { taskQueue, workflowId: taskQueue, args: ['reelflow'] }),
    );
    expect(result).toBe('workflow saw: hello reelflow');

    const attrs = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    expect(Object.keys(attrs.customAttributes ?? {})).toEqual(
      expect.arrayContaining(Object.keys(REELFLOW_SEARCH_ATTRIBUTES)),
    );
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
});
