/**
 * Queries of one vendor task leave this process at least the interface's minimum interval
 * apart, in real time (docs/vendor-contract.md, "What we assume where the documentation is
 * silent"): the workflow spaces its polls in workflow time, and their local activities start
 * later than that, by a different delay each time under load.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Entries older than this are dropped once the map is large: far beyond any interval. */
const FORGET_AFTER_MS = 60_000;
const PRUNE_AT_SIZE = 4_096;

/** The key of one vendor task's queries: the same for a stage's poll and the check of an offered id. */
export const taskKey = (endpoint: string, taskId: string): string => `${endpoint} ${taskId}`;

export class QuerySpacing {
  /** Per task key: the end of its last query, or the planned start of one in flight (ms). */
  private readonly last = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Runs `query` no sooner than `minMs` after the previous query of `key` ended. Counting
   * from the end, not the start: the vendor saw the previous request somewhere in between.
   */
  async spaced<T>(key: string, minMs: number, query: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const now = this.now();
    if (this.last.size >= PRUNE_AT_SIZE) this.prune(now);
    const previous = this.last.get(key);
    const at = previous === undefined ? now : Math.max(now, previous + minMs);
    this.last.set(key, at);
    if (at > now) await sleep(at - now, undefined, signal ? { signal } : undefined);
    try {
      return await query();
    } finally {
      this.last.set(key, Math.max(this.last.get(key) ?? 0, this.now()));
    }
  }

  /**
   * Resolves once `minMs` have passed since this process's last query of `key` ended: before a
   * result leaves for a workflow whose next query of the task may run in another process.
   */
  async settled(key: string, minMs: number, signal?: AbortSignal): Promise<void> {
    const wait = (this.last.get(key) ?? Number.NEGATIVE_INFINITY) + minMs - this.now();
    if (wait > 0) await sleep(wait, undefined, signal ? { signal } : undefined);
  }

  private prune(now: number): void {
    for (const [key, at] of this.last) if (at < now - FORGET_AFTER_MS) this.last.delete(key);
  }
}
