/**
 * Connections that close cleanly (src/config/temporal-connection.ts): a gRPC retry due after
 * `close()` ends its call with CANCELLED instead of throwing from its timer. The SDK's
 * plain connection is run beside it in a child process, where the throw ends the process.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { connectTemporal, lazyTemporal } from '../../src/config/temporal-connection';

const run = promisify(execFile);

/** Nothing listens here: every call fails with UNAVAILABLE, which the retry interceptor retries. */
const DEAD_ADDRESS = '127.0.0.1:1';

/** With the SDK's plain connection: a call failing and retrying, then the connection closed under it. */
const SDK_CLOSE_DURING_RETRY = `
  const { Connection } = require('@temporalio/client');
  const connection = Connection.lazy({ address: '${DEAD_ADDRESS}' });
  const outcome = connection.workflowService.getSystemInfo({}).then(() => 'resolved', (err) => 'rejected: ' + err.message);
  setTimeout(async () => {
    await connection.close();
    console.log(await outcome);
  }, 50);
`;

// The upstream bug this module works around: when it fails, the SDK has fixed it and the wrapper can go.
test("the SDK's own retry throws from its timer when the connection closes under it", async () => {
  const child = run(process.execPath, ['-e', SDK_CLOSE_DURING_RETRY]);
  await expect(child).rejects.toMatchObject({ stderr: expect.stringContaining('Channel has been shut down') });
});

test('a retry due after close ends its call with CANCELLED, and nothing throws outside it', async () => {
  const connection = lazyTemporal({ address: DEAD_ADDRESS });
  const outcome = connection.workflowService.getSystemInfo({});
  await new Promise((resolve) => setTimeout(resolve, 50)); // the first attempt failed; a retry is due
  await connection.close();
  await expect(outcome).rejects.toThrow(/CANCELLED: the Temporal connection was closed before a retry/);
  await new Promise((resolve) => setTimeout(resolve, 300)); // a retry timer that threw would fail this test here
});

test('calls on an open connection are answered as before', async () => {
  const connection = await connectTemporal({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    const info = await connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toMatch(/^\d+\.\d+/);
  } finally {
    await connection.close();
  }
});
