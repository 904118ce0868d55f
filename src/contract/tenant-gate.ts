/**
 * The tenant gate (docs/tenants.md, "Concurrency limits"): one workflow per tenant that hands out
 * its concurrency slots. A pipeline asks by signal (through an activity's signal-with-start:
 * a workflow cannot start one) and is granted by signal, as samples-typescript `mutex/` does.
 * Workflow-safe: no I/O here.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** The gate's workflow id: one per tenant, whichever worker or task queue asks first. */
export function gateWorkflowId(tenant: string): string {
  return `reelflow-gate/${tenant}`;
}

export const GATE_WORKFLOW_TYPE = 'tenantGate';

export interface AcquireSlot {
  pipelineId: string;
  /** Temporal priority key: lower is granted first. */
  priorityKey: number;
  /** The pipeline's start time (ISO): first in, first granted within a priority. */
  startedAt: string;
  /** The tenant's limit as this pipeline's policy has it; the gate applies the latest one asked. */
  limit: number;
}

export interface ReleaseSlot {
  pipelineId: string;
}

/** What the gate sends a pipeline it admits. */
export interface SlotGranted {
  /** 1…limit: which slot the pipeline holds, shown as "slot 3 of 5". */
  slot: number;
  limit: number;
}

export interface SlotHolder extends AcquireSlot {
  slot: number;
  grantedAt: string;
}

export interface GateState {
  tenant: string;
  limit: number;
  holders: SlotHolder[];
  /** In the order they will be granted. */
  queue: AcquireSlot[];
}

/** What a gate carries across continue-as-new; a test may start a gate with a small history limit. */
export interface GateInput {
  state?: GateState;
  /** Continue as new past this many history events (or when the server suggests it). */
  historyLimit?: number;
  /**
   * Started by a worker whose codec refuses plaintext: a signal that arrived in plaintext is
   * dropped (docs/encryption.md). Carried across continue-as-new.
   */
  codecStrict?: true;
}

export const acquireSlotSignal = defineSignal<[AcquireSlot]>('acquireSlot');
export const releaseSlotSignal = defineSignal<[ReleaseSlot]>('releaseSlot');
export const slotGrantedSignal = defineSignal<[SlotGranted]>('slotGranted');
export const gateStateQuery = defineQuery<GateState>('gateState');

/** A holder that closed without releasing (terminated, timed out) is noticed within this, plus one activity. */
export const GATE_SWEEP_MS = 30_000;
