/** Keep test output readable: the SDK's worker logs at WARN and above only. */
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger(process.env.REELFLOW_TEST_LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN') });
} catch {
  // Already installed in this jest worker process by an earlier test file.
}
