/**
 * The bench workflow of the stream-mechanisms bench (docs/benchmarks.md, "Gateway event
 * streams"): a stand-in for a pipeline's status changes, not a pipeline. It holds a snapshot
 * {version, stage, state, changedAt} and changes it `changes` times, each after a timer of
 * `gapMs` on average (drawn from 0.5..1.5 × gapMs with the workflow's seeded Math.random, so
 * replay draws the same): with a fixed gap, a poller started with the workflow and polling at
 * half that gap would meet every change at the same phase, and its latency would be that
 * phase, not the interval's. `changedAt` is workflow time (the workflow task's), so a
 * subscriber's receive time minus it is the latency from the change to the event. How the
 * change leaves the workflow is the input's mechanism:
 *
 * - query: a `benchStatus` query handler answers the snapshot (the gateway polls it);
 * - streams: each snapshot is published on the `status` topic of a Workflow Stream
 *   (`@temporalio/workflow-streams`; subscribers long-poll it with Updates);
 * - sinks: each snapshot goes to the `status.changed` sink, which the bench worker
 *   (worker.ts) POSTs to the bench process.
 *
 * Version 0 (the snapshot at the start) goes out the same way; the result is the last snapshot.
 * Bundled by the bench only; the product's workflows are untouched. Sandbox code: no I/O, no
 * node built-ins (eslint.config.mjs checks it like src/workflows).
 */
import { defineQuery, proxySinks, setHandler, sleep, type Sinks } from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';

export type WorkflowMechanism = 'query' | 'streams' | 'sinks';

export interface Snapshot {
  version: number;
  stage: string;
  state: string;
  /** Workflow time of the change, ms since the epoch. */
  changedAt: number;
  /** The last change: nothing follows but the workflow's end. */
  last: boolean;
}

export interface StreamBenchInput {
  mechanism: WorkflowMechanism;
  changes: number;
  gapMs: number;
}

export interface StatusSinks extends Sinks {
  status: { changed(snapshot: Snapshot): void };
}

export const benchStatusQuery = defineQuery<Snapshot>('benchStatus');
export const STATUS_TOPIC = 'status';

const STAGES = ['review', 'assets', 'generation', 'erase'];
const STATES = ['started', 'running', 'done'];

/** The snapshot after `version` changes: three states per stage, like a pipeline's stage rows. */
function snapshotAt(version: number, changes: number): Snapshot {
  const step = Math.max(0, version - 1);
  return {
    version,
    stage: version === 0 ? 'queued' : STAGES[Math.floor(step / STATES.length) % STAGES.length],
    state: version === 0 ? 'waiting' : STATES[step % STATES.length],
    changedAt: Date.now(),
    last: version === changes,
  };
}

/** How a snapshot leaves the workflow, by mechanism. */
function publisher(mechanism: WorkflowMechanism, current: () => Snapshot): (s: Snapshot) => void {
  if (mechanism === 'query') {
    setHandler(benchStatusQuery, current);
    return () => undefined;
  }
  if (mechanism === 'streams') {
    const topic = new WorkflowStream().topic<Snapshot>(STATUS_TOPIC);
    return (s) => topic.publish(s);
  }
  const { status } = proxySinks<StatusSinks>();
  return (s) => status.changed(s);
}

export async function streamBenchWorkflow(input: StreamBenchInput): Promise<Snapshot> {
  let snapshot = snapshotAt(0, input.changes);
  const publish = publisher(input.mechanism, () => snapshot);
  publish(snapshot);
  for (let version = 1; version <= input.changes; version++) {
    await sleep(Math.round(input.gapMs * (0.5 + Math.random())));
    snapshot = snapshotAt(version, input.changes);
    publish(snapshot);
  }
  return snapshot;
}
