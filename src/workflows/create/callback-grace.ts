/**
 * Reconcile by callback (docs/architecture.md, "Create without duplicates"): after an
 * ambiguous create of a review, generation or erase task, the task is found by a callback
 * that names it and passes the proof, within `deadlines.callbackGrace`.
 */
import { condition } from '@temporalio/workflow';
import type { CreateRuntime } from './desk';

/**
 * Reconcile by callback: wait a bounded grace period for a callback of this attempt that
 * names a task passing the proof (offers.ts). Refused ids do not end the wait. The grace is
 * over when its timer fires, never when Date.now() says so: the first activation after a
 * worker dies can carry a stale clock live and the right one on replay
 * (docs/architecture.md, "Workflow time after a worker dies"); the clock only sets the
 * length of a timer started again after a continue-as-new check.
 */
export async function waitForCallbackTaskId(
  rt: CreateRuntime,
  step: string,
  attempt: number,
  callbacksUsed: boolean,
  graceMs: number,
): Promise<string | undefined> {
  if (!callbacksUsed) return undefined;
  const until = Date.now() + graceMs;
  const proven = () => rt.book.provenTask(step, attempt) !== undefined;
  // A flood of callbacks grows the history: continue as new when long (the grace starts again there).
  while (!proven()) {
    const woken = await condition(() => proven() || rt.historyLong(), Math.max(1, until - Date.now()), {
      summary: rt.board.summary(
        `callback grace${step === rt.board.status.stage ? '' : ` for ${step}`} (attempt ${attempt})`,
      ),
    });
    if (!woken) break;
    await rt.checkpoint();
  }
  return rt.book.provenTask(step, attempt);
}
