/**
 * The chaos run's replay check: every workflow the run started on its task queue (pipelines,
 * gates, ledgers, webhook deliveries; each run of each) replays from scratch on the bundle
 * the workers loaded, as a worker that no longer caches it must after a kill. A
 * nondeterminism error here is a workflow that no later worker could take over
 * (docs/architecture.md, "Workflow time after a worker dies"). The runs the run's moves ended
 * by hand (a terminated ledger, docs/benchmarks.md, "Chaos run (`npm run chaos`)") must be among them.
 */
import type { Client, HistoryAndWorkflowId } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { codecDataConverter } from '../../src/codec';
import { defaultBundlePath } from '../../src/workers/bundle';
import type { InvariantResult } from './chaos-invariants';

/** Each run on the task queue; `types` gets each run's workflow type by run id. */
async function* historiesOn(
  client: Client,
  taskQueue: string,
  types: Map<string, string>,
): AsyncGenerator<HistoryAndWorkflowId> {
  for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
    const history = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    types.set(w.runId, w.type);
    yield { workflowId: w.workflowId, history };
  }
}

/** A run that must be among those replayed. */
export interface RunRef {
  workflowId: string;
  runId: string;
}

export async function checkReplays(
  client: Client,
  taskQueue: string,
  mustReplay: RunRef[] = [],
): Promise<InvariantResult> {
  const dataConverter = codecDataConverter(process.env);
  // The bundle variant the workers load: with the codec's converters when its keys are set.
  const { failureConverterPath, payloadConverterPath } = dataConverter ?? {};
  const variant = {
    ...(failureConverterPath ? { failureConverterPath } : {}),
    ...(payloadConverterPath ? { payloadConverterPath } : {}),
  };
  const options = {
    workflowBundle: { codePath: defaultBundlePath(variant) },
    ...(dataConverter ? { dataConverter } : {}),
  };
  const problems: string[] = [];
  const types = new Map<string, string>();
  const breakdown: Record<string, number> = {};
  let checked = 0;
  for await (const r of Worker.runReplayHistories(options, historiesOn(client, taskQueue, types))) {
    checked++;
    const type = types.get(r.runId) ?? 'unknown';
    breakdown[type] = (breakdown[type] ?? 0) + 1;
    if (r.error) problems.push(`${r.workflowId} (run ${r.runId}): ${r.error.message}`);
  }
  if (checked === 0) problems.push(`visibility listed no workflow on ${taskQueue}: nothing was replayed`);
  for (const m of mustReplay)
    if (!types.has(m.runId)) problems.push(`${m.workflowId} (run ${m.runId}) was not listed, so not replayed`);
  return {
    id: 'replays',
    title: 'Every workflow replays from scratch on the workers’ code',
    definition:
      'each run of each workflow on the task queue (listed by visibility: pipelines, gates, ledgers, webhook ' +
      'deliveries) replays with Worker.runReplayHistories on the workflow bundle the workers loaded, without a ' +
      'nondeterminism or replay error; the ledger run terminated mid-run is among them',
    violations: problems.length,
    checked,
    pass: problems.length === 0,
    examples: problems.slice(0, 10),
    breakdown,
  };
}
