/**
 * Queries of one vendor task leave this process at least the interface's minimum interval
 * apart, in real time (docs/vendor-contract.md, "Minimum query intervals").
 *
 * The workflow spaces its polls in workflow time: the start of the workflow task that asks.
 * Its queries run as local activities, which under load start later than that time, and by
 * different delays: two queries asked 1 s apart could reach the vendor 0.3 s apart and meet a
 * 429 (seen once in a 1000-pipeline bench run). A pipeline's local activities run on the worker
 * that holds it, so one process sees all of a task's queries but after a worker change, when
 * they are far apart anyway.
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
