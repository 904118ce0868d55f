/**
 * A pipeline's slot of its tenant's concurrency limit (docs/tenants.md, "Concurrency limits").
 * Only where the policy sets a limit, so runs without one record no command for it. The
 * pipeline asks its tenant's gate (tenant-gate.ts) before its first vendor call, shows
 * `queued`, and waits for the grant signal with no activity slot held; it gives the slot
 * back when it ends. The status's `slot` is carried across continue-as-new: a continued run
 * keeps its slot and asks no second time.
 */
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { ReelflowActivities } from '../../activities';
import { isPlaintext } from '../../codec/plaintext-mark';
import { gateWorkflowId, releaseSlotSignal, slotGrantedSignal, type SlotGranted } from '../../contract/tenant-gate';
import type { PipelineRuntime } from './pipeline-runtime';

/** The ask is idempotent: retried until the server takes it (a worker restart, a server outage). */
const ASK_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '20s',
  retry: { initialInterval: '1s', maximumInterval: '10s' },
};
const asking = proxyActivities<ReelflowActivities>(ASK_OPTIONS);

/** Waits for a slot of the tenant's limit; returns at once without a limit or with a carried slot. */
export async function takeSlot(rt: PipelineRuntime): Promise<void> {
  const policy = rt.tenantPolicy;
  const limit = policy?.concurrency;
  if (!policy || limit === undefined) return;
  let granted: SlotGranted | undefined;
  // Also in a continued run: a repeated grant (a retried ask) lands here and changes nothing.
  setHandler(slotGrantedSignal, (g) => {
    // Grants come from the gate, which encrypts: a plaintext one to a strict pipeline is forged.
    if (rt.codecStrict && isPlaintext(g)) return log.warn('slotGranted signal dropped: it arrived in plaintext');
    granted ??= g;
  });
  if (rt.board.status.slot?.state === 'held') return;
  const { workflowId, taskQueue, startTime } = workflowInfo();
  rt.board.status.state = 'queued';
  rt.board.status.slot = { state: 'queued', limit, since: new Date().toISOString() };
  rt.board.refresh();
  const request = {
    pipelineId: workflowId,
    priorityKey: policy.priorityKey,
    startedAt: startTime.toISOString(),
    limit,
  };
  await asking.askSlot.executeWithOptions(
    { ...ASK_OPTIONS, ...rt.board.taskOptions, summary: `ask ${gateWorkflowId(policy.tenant)}` },
    [{ tenant: policy.tenant, taskQueue, request }],
  );
  await condition(() => granted !== undefined);
  rt.board.status.slot = { state: 'held', slot: granted!.slot, limit: granted!.limit, since: new Date().toISOString() };
  rt.board.status.state = 'running';
  rt.board.refresh();
}

/**
 * Gives the slot back (or leaves the queue), whatever ended the pipeline; creates still in
 * flight finish first, so every create is sent while the slot is held. Never throws.
 */
export async function giveSlot(rt: PipelineRuntime): Promise<void> {
  const slot = rt.board.status.slot;
  if (!rt.tenantPolicy || !slot || slot.state === 'released') return;
  await CancellationScope.nonCancellable(async () => {
    await condition(() => rt.creates.createsPending === 0);
    try {
      await getExternalWorkflowHandle(gateWorkflowId(rt.tenantPolicy!.tenant)).signal(releaseSlotSignal, {
        pipelineId: rt.board.status.pipelineId,
      });
    } catch (err) {
      // The gate is gone (terminated by hand): nothing holds the slot any more.
      log.warn(`slot release not delivered: ${String(err)}`);
    }
  });
  rt.board.status.slot = { ...slot, state: 'released', since: new Date().toISOString() };
  delete rt.board.status.slot.slot;
  rt.board.refresh();
}
