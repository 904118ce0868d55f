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

/** Sleeps until `at` (workflow time); a hint or the loop never calls the vendor earlier. */
export async function holdUntil(at: number, summary: (ms: number) => string): Promise<void> {
  const ms = at - Date.now();
  if (ms > 0) await sleep(ms, { summary: summary(ms) });
}
