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

/** The pipeline's Retry-After holds (`rt.creates.holds`), carried across continue-as-new as plain data. */
export class Holds {
  /** Per vendor interface: no call before this time (epoch ms); RuntimeCarry.holds. */
  readonly carry: Record<string, number>;

  constructor(carried: Record<string, number>) {
    this.carry = { ...carried };
  }

  /** The hold of `iface` not yet waited out (0: none): the earliest time its next call may go out. */
  notBefore(iface: string): number {
    return this.carry[iface] ?? 0;
  }

  /** A 429's Retry-After: every later call to `iface` waits until `until`. */
  hold(iface: string, until: number): void {
    if (until > (this.carry[iface] ?? 0)) this.carry[iface] = until;
  }

  /** A timer waited until `at`: a hold of `iface` no later than that is over, and no later call waits for it. */
  holdServed(iface: string, at: number): void {
    if ((this.carry[iface] ?? 0) <= at) delete this.carry[iface];
  }
}

/**
 * Waits out `iface`'s Retry-After hold and, when given, a minimum interval `spacing` (the
 * workflow time a call may go out at) that no timer has proven over. The first activation
 * after a worker dies can carry a stale Date.now() live and the right one on replay, so
 * whether a timer starts is decided from the history alone (a hold recorded and not yet
 * waited out, a spacing owed) and Date.now() only sets its length, at least 1 ms
 * (docs/architecture.md, "Workflow time after a worker dies").
 */
export async function holdFor(
  holds: Holds,
  iface: string,
  summary: (ms: number) => string,
  spacing?: number,
): Promise<void> {
  const hold = holds.notBefore(iface);
  if (hold === 0 && spacing === undefined) return;
  const ms = Math.max(1, Math.max(hold, spacing ?? 0) - Date.now());
  await sleep(ms, { summary: summary(ms) });
  if (hold > 0) holds.holdServed(iface, hold);
}
