/**
 * The stream-mechanisms bench's worker, run as its own process so its CPU and RSS are read
 * apart from the subscribers' (docs/benchmarks.md, "Gateway event streams"):
 *
 *   node --import tsx worker.ts --address HOST:PORT --task-queue Q --bundle FILE --sink-url URL
 *
 * It runs the bench workflow (workflow.ts) from a bundle main.ts built once, on its own task
 * queue. Its `status.changed` sink (callDuringReplay false) POSTs each snapshot to the bench
 * process's stand-in gateway and does not wait for the answer: a sink's promise is awaited
 * before the workflow task's completion is sent, so waiting would hold every change on the
 * gateway's HTTP. Prints READY when polling; SIGTERM shuts it down.
 */
import { parseArgs } from 'node:util';
import { NativeConnection, Runtime, Worker, makeTelemetryFilterString, type InjectedSinks } from '@temporalio/worker';
import type { StatusSinks } from './workflow';

const { values } = parseArgs({
  options: {
    address: { type: 'string' },
    'task-queue': { type: 'string' },
    bundle: { type: 'string' },
    'sink-url': { type: 'string' },
  },
});

let pushed = 0;
let pushFailures = 0;

function push(url: string, workflowId: string, snapshot: unknown): void {
  pushed++;
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowId, snapshot }),
  })
    .then((res) => {
      if (!res.ok) pushFailures++;
      return res.body?.cancel();
    })
    .catch(() => void pushFailures++);
}

async function main(): Promise<void> {
  const { address, bundle, 'task-queue': taskQueue, 'sink-url': sinkUrl } = values;
  if (!address || !bundle || !taskQueue || !sinkUrl)
    throw new Error('--address, --task-queue, --bundle and --sink-url');
  Runtime.install({ telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } });
  const sinks: InjectedSinks<StatusSinks> = {
    status: { changed: { fn: (info, snapshot) => push(sinkUrl, info.workflowId, snapshot), callDuringReplay: false } },
  };
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { codePath: bundle },
    sinks,
  });
  process.once('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  process.stdout.write('READY\n');
  await running;
  await connection.close();
  process.stdout.write(`DONE pushed=${pushed} pushFailures=${pushFailures}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
