/**
 * `reelflow worker`: the worker process (src/workers/main.ts), so an installed package runs
 * its worker without a script of the user's. Configured by the environment, like
 * `npm run worker`; SIGINT/SIGTERM drain it (the SDK's shutdown signals). Loaded only
 * when run: the other commands never load @temporalio/worker.
 */
import { EXIT } from '../output';
import type { CommandFn } from '../session';

export const worker: CommandFn = async (ctx) => {
  const { startWorkerProcess } = await import('../../../workers/main');
  const running = await startWorkerProcess({ env: ctx.io.env });
  ctx.io.stderr.write(`reelflow worker: polling ${running.taskQueues.join(', ')} in namespace ${running.namespace}\n`);
  await running.done;
  return EXIT.ok;
};
