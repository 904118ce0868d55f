/**
 * Poll with durable timers (docs/architecture.md, "Polling"): one query activity, then a workflow timer
 * that grows to a cap (small history), cut short by a callback hint. With callbacks on,
 * polling goes on at a slower cadence in case a callback is lost.
 *
 * Three vendor answers are not verdicts: a state we do not know (shown, polled on), a
 * "not found" just after the create issued the id (read-after-write lag, retried for a
 * grace period), and a 429 (its Retry-After holds every later call to that interface).
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { MIN_QUERY_INTERVAL_MS } from '../../vendor-api/assumed-values';
import { failureMessage, isFatalQueryFailure, isNotFound, retryAfterAt } from './failures';
import { holdUntil, interfaceOf } from './holds';
import { duration } from './summaries';
import { stageFailure } from './create';
import { DEFAULT_NOT_FOUND_GRACE_MS, type PipelineRuntime } from './pipeline-runtime';
import { FailureType } from '../../failures';

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
  rt: PipelineRuntime;
  step: string;
  /** Human label for messages, e.g. "generation task cgt-1". */
  label: string;
  /** What is polled, as Web UI summaries name it: a task id, "asset hero (id)". */
  subject: string;
  endpoint: string;
  policy: PollPolicy;
  callbacks: boolean;
  deadlineMs: number;
  startedAt?: number;
  query(): Promise<T>;
  done(value: T): boolean;
  onValue?(value: T): void;
  /** The vendor's state in an answer, and the states we understand (others are shown, and polled on). */
  states?: { of(value: T): string; known: readonly string[] };
  /** "Not found" within this long of `startedAt` is read-after-write lag, not a verdict. */
  notFoundGraceMs?: number;
  /** Called once when the task has been unfinished this long (e.g. asset Pending 5 min). */
  stuck?: { afterMs: number; onStuck(): void };
  /** A durable wait before the first query (an asset just created is Pending); none when 0 or absent. */
  firstWaitMs?: number;
}

export const DEFAULT_POLICIES = {
  asset: { firstMs: 1_000, maxMs: 5_000, factor: 1.5, minMs: MIN_QUERY_INTERVAL_MS.asset, callbackSlowdown: 1 },
  review: { firstMs: 1_000, maxMs: 10_000, factor: 1.5, minMs: MIN_QUERY_INTERVAL_MS.review, callbackSlowdown: 3 },
  generation: {
    firstMs: 2_000,
    maxMs: 15_000,
    factor: 1.5,
    minMs: MIN_QUERY_INTERVAL_MS.generation,
    callbackSlowdown: 3,
  },
  erase: { firstMs: 2_000, maxMs: 15_000, factor: 1.5, minMs: MIN_QUERY_INTERVAL_MS.erase, callbackSlowdown: 3 },
} satisfies Record<string, PollPolicy>;

export async function pollUntilDone<T>(spec: PollSpec<T>): Promise<T> {
  const { rt, policy } = spec;
  const startedAt = spec.startedAt ?? Date.now();
  const iface = interfaceOf(spec.endpoint);
  let wait = policy.firstMs;
  let stuckReported = false;
  let lastError: string | undefined;
  let unknownState: string | undefined;
  let lastQueryAt: number | undefined;
  // When the last wait ran its full delay (no hint), the clock has passed its end.
  let waitedUntil = spec.firstWaitMs ? await firstWait(spec, spec.firstWaitMs) : 0;
  for (;;) {
    // A callback hint or an offer check (rt.book.lastQueryAt) never brings a query under the minimum interval.
    const lastCall = Math.max(lastQueryAt ?? 0, rt.book.lastQueryAt(spec.step) ?? 0);
    await holdUntil(
      Math.max(rt.notBefore(iface), lastCall ? lastCall + policy.minMs : 0),
      (ms) => rt.summary(`wait ${duration(ms)} before polling ${spec.subject} (minimum interval / Retry-After)`),
      waitedUntil,
    );
    lastQueryAt = Date.now();
    rt.count(spec.endpoint);
    try {
      const value = await spec.query();
      lastError = undefined;
      unknownState = notUnderstood(spec, value);
      spec.onValue?.(value);
      if (unknownState) showUnknown(rt, spec.label, unknownState);
      else if (spec.done(value)) return value;
    } catch (err) {
      rt.holdInterface(iface, retryAfterAt(err));
      lastError = queryFailure(spec, err, startedAt);
    }
    const elapsed = Date.now() - startedAt;
    if (elapsed > spec.deadlineMs) throw deadlineFailure(spec.label, elapsed, lastError, unknownState);
    if (spec.stuck && !stuckReported && elapsed > spec.stuck.afterMs) {
      stuckReported = true;
      spec.stuck.onStuck();
    }
    await rt.checkpoint();
    const delay = Math.max(policy.minMs, spec.callbacks ? wait * policy.callbackSlowdown : wait);
    const waitFrom = Date.now();
    const hinted = await rt.book.waitForHint(
      spec.step,
      delay,
      rt.summary(`wait ${duration(delay)} before next poll of ${spec.subject}`),
    );
    waitedUntil = hinted ? 0 : waitFrom + delay;
    wait = Math.min(wait * policy.factor, policy.maxMs);
  }
}

/** The wait before the first query; returns the workflow time it proves (the timer's end). */
async function firstWait<T>(spec: PollSpec<T>, ms: number): Promise<number> {
  const from = Date.now();
  const hinted = await spec.rt.book.waitForHint(
    spec.step,
    ms,
    spec.rt.summary(`wait ${duration(ms)} for ${spec.subject} to process before the first poll`),
  );
  return hinted ? 0 : from + ms;
}

/** Membership for the vendor's readonly state tuples. */
export function isOneOf(value: string, list: readonly string[]): boolean {
  return list.includes(value);
}

function notUnderstood<T>(spec: PollSpec<T>, value: T): string | undefined {
  if (!spec.states) return undefined;
  const state = spec.states.of(value);
  return spec.states.known.includes(state) ? undefined : state;
}

function showUnknown(rt: PipelineRuntime, label: string, state: string): void {
  const detail = `${label}: vendor state "${state}" not understood; still polling`;
  if (rt.detail !== detail) {
    rt.detail = detail;
    rt.report();
  }
}

/**
 * A failed query: fatal ones stop the stage; "not found" within the grace is lag; the rest
 * (network trouble, 429 after the activity's own retries) is kept to name at the deadline.
 */
function queryFailure<T>(spec: PollSpec<T>, err: unknown, startedAt: number): string {
  if (isNotFound(err)) {
    const grace = spec.notFoundGraceMs ?? DEFAULT_NOT_FOUND_GRACE_MS;
    const since = Date.now() - startedAt;
    if (since <= grace) return failureMessage(err);
    throw stageFailure(
      `${spec.label}: this task id was issued by the create but is unknown at the vendor: still "not found" after ` +
        `${Math.round(since / 1000)} s (read-after-write grace ${Math.round(grace / 1000)} s): ${failureMessage(err)}`,
      FailureType.TaskUnknownAtVendor,
    );
  }
  if (isFatalQueryFailure(err)) throw stageFailure(`${spec.label}: ${failureMessage(err)}`, FailureType.QueryRejected);
  if (err instanceof ApplicationFailure) throw err;
  return failureMessage(err);
}

function deadlineFailure(
  label: string,
  elapsedMs: number,
  lastError?: string,
  unknownState?: string,
): ApplicationFailure {
  const why = unknownState
    ? `; vendor state "${unknownState}" not understood`
    : lastError
      ? `; last error: ${lastError}`
      : '';
  return stageFailure(
    `${label}: not finished after ${Math.round(elapsedMs / 1000)} s (deadline)${why}`,
    FailureType.VendorTaskDeadline,
  );
}
