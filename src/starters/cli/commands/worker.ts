/**
 * `reelflow worker`: the worker process (src/workers/main.ts), so an installed package runs
 * its worker without a script of the user's. Configured by the environment, like
 * `npm run worker`; SIGINT/SIGTERM drain it (the SDK's shutdown signals), a second one exits
 * at once, non-zero. Loaded only when run: the other commands never load @temporalio/worker.
 *
 * It exits the process itself with workerMain's code: the SDK's native runtime keeps the event
 * loop alive after a failed start, so returning the code would leave the process hanging.
 */
import type { CommandFn } from '../session';

export const worker: CommandFn = async (ctx) => {
  const { workerMain } = await import('../../../workers/main');
  const code = await workerMain({ env: ctx.io.env }, (running) =>
    ctx.io.stderr.write(
      `reelflow worker: polling ${running.taskQueues.join(', ')} in namespace ${running.namespace}\n`,
    ),
  );
  process.exit(code);
};
