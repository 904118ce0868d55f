/**
 * A tenant gate's grants and releases as its histories record them (docs/tenants.md,
 * "Concurrency limits"), every run of it in order: a grant is the gate's
 * SignalExternalWorkflowExecutionInitiated to a pipeline; a release is a `releaseSlot` signal,
 * a grant signal that failed (the pipeline was gone), or a sweep's activity result naming the
 * holder closed. Read from history, never sampled: the tests and the chaos run check the
 * limit and the creates' times against it.
 */
import type { Client } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { gateWorkflowId, type AcquireSlot, type ReleaseSlot } from '../../src/contract/tenant-gate';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface SlotInterval {
  pipelineId: string;
  grantedAtMs: number;
  /** Undefined while still held when the histories were read. */
  releasedAtMs?: number;
  released?: 'released' | 'grant failed' | 'swept';
}

export interface GateTimeline {
  tenant: string;
  /** Every holding, in grant order. */
  intervals: SlotInterval[];
  /** The most holders at once, replaying the events in history order. */
  maxHolders: number;
  /** The limits the pipelines asked with. */
  limits: number[];
  /** Pipeline ids in the order their first grant was recorded. */
  grantOrder: string[];
  runs: number;
}

/** Every run of the gate, oldest first (walked back from the latest by its continued-from run). */
async function gateHistories(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.unshift(events);
    const prev = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!prev) return runs;
    runId = prev;
  }
}

const timeOf = (e: HistoryEvent): number => {
  const t = e.eventTime!;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
};

/** Replays the gate's recorded events into holding intervals. */
export async function readGateTimeline(client: Client, tenant: string): Promise<GateTimeline> {
  const converter = client.workflow.options.loadedDataConverter;
  const decode = async (p: temporal.api.common.v1.IPayloads | null | undefined) =>
    decodeArrayFromPayloads(converter, p?.payloads ?? []);
  const open = new Map<string, SlotInterval>();
  const t: GateTimeline = { tenant, intervals: [], maxHolders: 0, limits: [], grantOrder: [], runs: 0 };
  const close = (id: string, at: number, how: SlotInterval['released']) => {
    const i = open.get(id);
    if (!i) return;
    i.releasedAtMs = at;
    i.released = how;
    open.delete(id);
  };
  for (const events of await gateHistories(client, gateWorkflowId(tenant))) {
    t.runs++;
    const initiated = new Map<number, string>();
    const sweeps = new Set<number>();
    for (const e of events) {
      const at = timeOf(e);
      const sig = e.workflowExecutionSignaledEventAttributes;
      if (sig?.signalName === 'acquireSlot') t.limits.push(((await decode(sig.input))[0] as AcquireSlot).limit);
      if (sig?.signalName === 'releaseSlot')
        close(((await decode(sig.input))[0] as ReleaseSlot).pipelineId, at, 'released');
      const grant = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
      if (grant) {
        const id = grant.workflowExecution!.workflowId!;
        initiated.set(Number(e.eventId), id);
        if (!open.has(id)) {
          const i = { pipelineId: id, grantedAtMs: at };
          open.set(id, i);
          t.intervals.push(i);
          if (!t.grantOrder.includes(id)) t.grantOrder.push(id);
        }
        t.maxHolders = Math.max(t.maxHolders, open.size);
      }
      const failed = e.signalExternalWorkflowExecutionFailedEventAttributes;
      if (failed) close(initiated.get(Number(failed.initiatedEventId))!, at, 'grant failed');
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === 'closedSlotHolders') sweeps.add(Number(e.eventId));
      const done = e.activityTaskCompletedEventAttributes;
      if (done && sweeps.has(Number(done.scheduledEventId)))
        for (const id of (await decode(done.result))[0] as string[]) close(id, at, 'swept');
    }
  }
  return t;
}

/** The holding of `pipelineId` that covers `atMs`, if any. */
export function heldAt(t: GateTimeline, pipelineId: string, atMs: number): SlotInterval | undefined {
  return t.intervals.find(
    (i) => i.pipelineId === pipelineId && i.grantedAtMs <= atMs && (i.releasedAtMs ?? Infinity) >= atMs,
  );
}
