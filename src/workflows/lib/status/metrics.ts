/**
 * The few metrics only workflow code can know: reconcile outcomes, stage durations,
 * pipelines by end state and their cost. The SDK's workflow meter emits nothing while a
 * history replays and adds no command, so replay and determinism are untouched.
 */
import { ActivityFailure, ApplicationFailure, metricMeter } from '@temporalio/workflow';
import { METRICS, MICROUNITS, type ReconcileOutcome } from '../../../metrics/names';
import { listedCosts } from '../../../contract/stages';
import type { PipelineStatus, StageName, VendorTaskKind } from '../../../contract/messages';

export function countReconcile(kind: VendorTaskKind, outcome: ReconcileOutcome): void {
  const m = METRICS.reconcile;
  metricMeter.createCounter(m.name, undefined, m.help).add(1, { kind, outcome });
}

export function recordStageDuration(stage: StageName, state: string, ms: number): void {
  const m = METRICS.stageDuration;
  metricMeter.createHistogram(m.name, 'float', 's', m.help).record(Math.max(0, ms) / 1000, { stage, state });
}

/** The stage's failure type (the pipeline's cause), or the failed activity's. */
function failureType(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return err.cause.type ?? 'Error';
  if (err instanceof ApplicationFailure) return err.type ?? 'Error';
  return err instanceof Error ? err.name : 'Error';
}

/** A pipeline ended (not continued as new): its end state, and what its vendor tasks cost. */
export function countPipelineEnd(status: PipelineStatus, err?: unknown): void {
  const ended = METRICS.pipelinesEnded;
  const tags: Record<string, string> = { state: status.state, stage: status.stage };
  if (status.state === 'failed') tags.failure = failureType(err);
  metricMeter.createCounter(ended.name, undefined, ended.help).add(1, tags);
  const cost = METRICS.cost;
  for (const [kind, c] of Object.entries(listedCosts(status.vendorTasks))) {
    metricMeter
      .createCounter(cost.name, undefined, cost.help)
      .add(Math.round(c.calls * c.unitPrice * MICROUNITS), { currency: c.currency, item: kind });
  }
}
