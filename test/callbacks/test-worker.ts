/** A real worker for the receiver's test workflows (callback-workflows.ts) and a client, on the dev server. */
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { connectTemporal } from '../../src/config/temporal-connection';

export interface TestWorker {
  client: Client;
  close(): Promise<void>;
}

export async function startTestWorker(taskQueue: string): Promise<TestWorker> {
  const address = process.env.TEMPORAL_ADDRESS!;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('./callback-workflows'),
  });
  const running = worker.run();
  const connection = await connectTemporal({ address });
  return {
    client: new Client({ connection, namespace }),
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}
