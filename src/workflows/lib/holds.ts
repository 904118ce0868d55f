/**
 * Holds on a vendor interface: a 429's Retry-After holds every later call to that
 * interface within the stage (queries and creates alike), across activity attempts and
 * poll loops, so the vendor's date is never undercut.
 */
import { sleep } from '@temporalio/workflow';

/** "generation.get" → "generation": a 429 on one call holds every call to that interface. */
export function interfaceOf(endpoint: string): string {
  return endpoint.split('.')[0] ?? endpoint;
}

/**
 * Sleeps until `at` (workflow time); a hint or the loop never calls the vendor earlier.
 * `passed` is a time the workflow is known to have reached (a timer that ran its full
 * duration): the first activation after a workflow task that timed out (a worker killed) can
 * carry a stale Date.now() live and the right one on replay, so a hold decided by Date.now()
 * alone could start a timer that the replay does not (docs/architecture.md, "Workflow time
 * after a worker dies").
 */
export async function holdUntil(at: number, summary: (ms: number) => string, passed = 0): Promise<void> {
  const ms = at - Math.max(Date.now(), passed);
  if (ms > 0) await sleep(ms, { summary: summary(ms) });
}
