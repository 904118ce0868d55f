/**
 * Workflow times a decision waits for, each proven by a durable timer: a timer's firing is
 * a history event, so "has this time passed?" answers the same live and on replay. Date.now()
 * does not: the first activation after a worker dies can carry a stale clock live and the
 * right one on replay (docs/architecture.md, "Workflow time after a worker dies"). The clock
 * only sets each timer's length (at least 1 ms), which a replay does not compare.
 */
import { CancellationScope, sleep } from '@temporalio/workflow';

export interface TimeMark {
  /** The mark's timer has fired: the workflow's time has reached the mark. */
  readonly passed: boolean;
}

export interface TimeMarks {
  /** Starts the timer of workflow time `at` (already past: 1 ms). */
  mark(at: number, summary: string): TimeMark;
  /** Cancels the timers that have not fired (the loop that asked is over). */
  stop(): void;
}

export function timeMarks(): TimeMarks {
  const scope = new CancellationScope();
  return {
    mark(at, summary) {
      const mark = { passed: false };
      scope
        .run(() => sleep(Math.max(1, at - Date.now()), { summary }))
        .then(
          () => (mark.passed = true),
          () => undefined,
        );
      return mark;
    },
    stop: () => scope.cancel(),
  };
}
