/**
 * Poll with durable timers (DESIGN.md §2): one query activity, then a workflow timer
 * that grows to a cap (small history), cut short by a callback hint. With callbacks on,
 * polling goes on at a slower cadence in case a callback is lost.
 */
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { failureMessage, isFatalQueryFailure } from './failures';
import { stageFailure } from './create';
import type { StageRuntime } from './stage-runtime';

export interface PollPolicy {
  firstMs: number;
  maxMs: number;
  factor: number;
  /** Never query more often than this (spec minimums: GetAsset 500 ms, review 1 s). */
  minMs: number;
  /** Cadence multiplier while callbacks are expected. */
  callbackSlowdown: number;
}

export interface PollSpec<T> {
  rt: StageRuntime;
  step: string;
  label: string;
  endpoint: string;
  policy: PollPolicy;
  callbacks: boolean;
  deadlineMs: number;
  startedAt?: number;
  query(): Promise<T>;
  done(value: T): boolean;
  onValue?(value: T): void;
  /** Called once when the task has been unfinished this long (e.g. asset Pending 5 min). */
  stuck?: { afterMs: number; onStuck(): void };
  /** Continue-as-new hook: called when history grows large; must not return. */
  continueAsNew?: () => Promise<never>;
  /** History length that triggers it (default CONTINUE_AS_NEW_EVENTS). */
  historyLimit?: number;
}

export const DEFAULT_POLICIES = {
  asset: { firstMs: 1_000, maxMs: 5_000, factor: 1.5, minMs: 500, callbackSlowdown: 1 },
  review: { firstMs: 1_000, maxMs: 10_000, factor: 1.5, minMs: 1_000, callbackSlowdown: 3 },
  generation: { firstMs: 2_000, maxMs: 15_000, factor: 1.5, minMs: 1_000, callbackSlowdown: 3 },
  erase: { firstMs: 2_000, maxMs: 15_000, factor: 1.5, minMs: 1_000, callbackSlowdown: 3 },
} satisfies Record<string, PollPolicy>;

/** History length past which a polling child continues as new. */
export const CONTINUE_AS_NEW_EVENTS = 4_000;

export async function pollUntilDone<T>(spec: PollSpec<T>): Promise<T> {
  const { rt, policy } = spec;
  const startedAt = spec.startedAt ?? Date.now();
  let wait = policy.firstMs;
  let stuckReported = false;
  let lastError: string | undefined;
  for (;;) {
    rt.count(spec.endpoint);
    try {
      const value = await spec.query();
      lastError = undefined;
      spec.onValue?.(value);
      if (spec.done(value)) return value;
    } catch (err) {
      if (isFatalQueryFailure(err)) throw stageFailure(`${spec.label}: ${failureMessage(err)}`, 'QueryRejected');
      if (err instanceof ApplicationFailure) throw err;
      lastError = failureMessage(err); // network trouble: keep polling until the deadline
    }
    const elapsed = Date.now() - startedAt;
    if (elapsed > spec.deadlineMs) {
      throw stageFailure(
        `${spec.label}: not finished after ${Math.round(elapsed / 1000)} s (deadline)${lastError ? `; last error: ${lastError}` : ''}`,
        'VendorTaskDeadline',
      );
    }
    if (spec.stuck && !stuckReported && elapsed > spec.stuck.afterMs) {
      stuckReported = true;
      spec.stuck.onStuck();
    }
    const info = workflowInfo();
    if (spec.continueAsNew && (info.continueAsNewSuggested || info.historyLength > (spec.historyLimit ?? CONTINUE_AS_NEW_EVENTS))) {
      await spec.continueAsNew();
    }
    const delay = Math.max(policy.minMs, spec.callbacks ? wait * policy.callbackSlowdown : wait);
    await rt.waitForHint(spec.step, delay, `poll ${spec.label}`);
    wait = Math.min(wait * policy.factor, policy.maxMs);
  }
}

