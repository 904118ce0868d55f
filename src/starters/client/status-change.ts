/**
 * When a pipeline's status has changed, and how its snapshots are versioned: the one rule
 * followPipeline's onStatus, watchPipeline (watch.ts) and the gateway's event streams share.
 */
import type { PipelineStatus } from '../../contract/messages';

/**
 * What counts as a change: everything the status shows except its vendor call counters,
 * which grow with every poll of a task that has not moved ("generation running" five times
 * in a row is one state, not five).
 */
export function statusKey(status: PipelineStatus): string {
  const { calls: _calls, ...shown } = status;
  return JSON.stringify(shown);
}

/**
 * Versions grow with time (ms since the epoch, at least one above the last), so a client's
 * Last-Event-ID still orders against the snapshots of a later poller or another gateway.
 */
export function nextVersion(last: number, nowMs = Date.now()): number {
  return Math.max(last + 1, nowMs);
}
