/**
 * Queries of one vendor task leave this process at least the interface's minimum interval
 * apart, in real time (docs/vendor-contract.md, "Where the query intervals are kept"): the
 * workflow spaces its polls in workflow time, and their local activities start later than
 * that, by a different delay each time under load.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Entries older than this are dropped once the map is large: far beyond any interval. */
const FORGET_AFTER_MS = 60_000;
const PRUNE_AT_SIZE = 4_096;

export class QuerySpacing {
  /** Per task key: when its last query was allowed to leave (ms, this process's clock). */
  private readonly sent = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Resolves when `key` may be queried: at once, or `minMs` after its previous query. The
   * slot is taken before waiting, so two concurrent queries of one task are spaced too.
   */
  async turn(key: string, minMs: number, signal?: AbortSignal): Promise<void> {
    const now = this.now();
    if (this.sent.size >= PRUNE_AT_SIZE) this.prune(now);
    const previous = this.sent.get(key);
    const at = previous === undefined ? now : Math.max(now, previous + minMs);
    this.sent.set(key, at);
    if (at > now) await sleep(at - now, undefined, signal ? { signal } : undefined);
  }

  private prune(now: number): void {
    for (const [key, at] of this.sent) if (at < now - FORGET_AFTER_MS) this.sent.delete(key);
  }
}
