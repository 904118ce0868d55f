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
import type { PollPolicy } from '../../../contract/poll-policy';
import { failureMessage, isFatalQueryFailure, isNotFound, retryAfterAt, stageFailure } from '../failures';
import { holdFor, interfaceOf } from '../../create/holds';
import { timeMarks, type TimeMark, type TimeMarks } from './time-marks';
import { duration } from '../status/summaries';
import { DEFAULT_NOT_FOUND_GRACE_MS, type PipelineRuntime } from '../pipeline-runtime';
import { FailureType } from '../../../failures';

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

export async function pollUntilDone<T>(spec: PollSpec<T>): Promise<T> {
  const marks = timeMarks();
  try {
    return await pollLoop(spec, pollMarks(spec, marks));
  } finally {
    marks.stop();
  }
}

/** The times the loop decides on (docs/architecture.md, "Workflow time after a worker dies"). */
interface PollMarks {
  startedAt: number;
  deadline: TimeMark;
  stuck?: TimeMark;
  /** The end of the "not found" grace, marked at the first "not found". */
  notFoundGrace(): TimeMark;
}

/** The deadline and the stuck threshold as timers from the start (no Date.now() decides them). */
function pollMarks<T>(spec: PollSpec<T>, marks: TimeMarks): PollMarks {
  const startedAt = spec.startedAt ?? Date.now();
  const mark = (ms: number, what: string) =>
    marks.mark(startedAt + ms, spec.rt.board.summary(`${what} of ${spec.subject} (${duration(ms)})`));
  let grace: TimeMark | undefined;
  return {
    startedAt,
    deadline: mark(spec.deadlineMs, 'deadline'),
    ...(spec.stuck ? { stuck: mark(spec.stuck.afterMs, 'stuck threshold') } : {}),
    notFoundGrace: () => (grace ??= mark(spec.notFoundGraceMs ?? DEFAULT_NOT_FOUND_GRACE_MS, '"not found" grace')),
  };
}

async function pollLoop<T>(spec: PollSpec<T>, marks: PollMarks): Promise<T> {
  const { rt, policy, step } = spec;
  const iface = interfaceOf(spec.endpoint);
  let wait = policy.firstMs;
  let stuckReported = false;
  let lastError: string | undefined;
  let unknownState: string | undefined;
  let lastQueryAt: number | undefined;
  // The minimum interval since this step's last query is proven over by a wait that ran its full
  // delay after it (delay ≥ minMs); else (a hint cut the wait, an offer's check came since) it is owed.
  let checks = rt.book.queriesOf(step);
  const fullFirstWait = spec.firstWaitMs ? await firstWait(spec, spec.firstWaitMs) : false;
  let spaced = checks === 0 || (fullFirstWait && (spec.firstWaitMs ?? 0) >= policy.minMs);
  for (;;) {
    const owed = !spaced || rt.book.queriesOf(step) !== checks;
    const lastCall = Math.max(lastQueryAt ?? 0, rt.book.lastQueryAt(step) ?? 0);
    await holdFor(
      rt.creates.holds,
      iface,
      (ms) => rt.board.summary(`wait ${duration(ms)} before polling ${spec.subject} (minimum interval / Retry-After)`),
      owed ? lastCall + policy.minMs : undefined,
    );
    lastQueryAt = Date.now();
    rt.board.count(spec.endpoint);
    try {
      const value = await spec.query();
      lastError = undefined;
      unknownState = notUnderstood(spec, value);
      spec.onValue?.(value);
      if (unknownState) showUnknown(rt, spec.label, unknownState);
      else if (spec.done(value)) return value;
    } catch (err) {
      rt.creates.holds.hold(iface, retryAfterAt(err));
      lastError = queryFailure(spec, err, marks);
    }
    if (marks.deadline.passed) throw deadlineFailure(spec.label, Date.now() - marks.startedAt, lastError, unknownState);
    if (spec.stuck && !stuckReported && marks.stuck?.passed) {
      stuckReported = true;
      spec.stuck.onStuck();
    }
    await rt.checkpoint();
    const delay = Math.max(policy.minMs, spec.callbacks ? wait * policy.callbackSlowdown : wait);
    checks = rt.book.queriesOf(step);
    spaced = !(await rt.book.waitForHint(
      step,
      delay,
      rt.board.summary(`wait ${duration(delay)} before next poll of ${spec.subject}`),
    ));
    wait = Math.min(wait * policy.factor, policy.maxMs);
  }
}

/** The wait before the first query; true when it ran its full delay (no hint cut it). */
async function firstWait<T>(spec: PollSpec<T>, ms: number): Promise<boolean> {
  const hinted = await spec.rt.book.waitForHint(
    spec.step,
    ms,
    spec.rt.board.summary(`wait ${duration(ms)} for ${spec.subject} to process before the first poll`),
  );
  return !hinted;
}

function notUnderstood<T>(spec: PollSpec<T>, value: T): string | undefined {
  if (!spec.states) return undefined;
  const state = spec.states.of(value);
  return spec.states.known.includes(state) ? undefined : state;
}

function showUnknown(rt: PipelineRuntime, label: string, state: string): void {
  const detail = `${label}: vendor state "${state}" not understood; still polling`;
  if (rt.board.detail !== detail) {
    rt.board.detail = detail;
    rt.board.report();
  }
}

/**
 * A failed query: fatal ones stop the stage; "not found" within the grace is lag; the rest
 * (network trouble, 429 after the activity's own retries) is kept to name at the deadline.
 */
function queryFailure<T>(spec: PollSpec<T>, err: unknown, marks: PollMarks): string {
  if (isNotFound(err)) {
    const grace = spec.notFoundGraceMs ?? DEFAULT_NOT_FOUND_GRACE_MS;
    const since = Date.now() - marks.startedAt;
    if (!marks.notFoundGrace().passed) return failureMessage(err);
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
