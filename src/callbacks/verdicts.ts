/**
 * What the receiver remembers of the stage's `callbackVerdict` answers, so that a callback
 * whose answer cannot change is dropped without asking the workflow again
 * (docs/operations.md, "Callbacks").
 *
 * Only facts that stay true for the rest of a pipeline's run chain are kept, and only for
 * URLs that name the chain (v2 URLs carry its first run id):
 * - a step whose task ended is `settled` for good (continue-as-new carries it);
 * - an attempt the stage calls `stale` stays stale (a later attempt replaced it, or the URL
 *   is another run's);
 * - a task id is the attempt's own (`passing` was answered for it) or not (`mismatch`):
 *   an attempt's task never changes once known.
 * A fact learned by one receiver cannot be made wrong by another, so several receivers
 * need no shared memory; each asks at most once for what it does not know.
 */
import type { CallbackVerdict } from '../contract/messages';
import type { RelayKey } from './guard';
import { isPassingState } from './steps';

export interface VerdictMemoryLimits {
  /** Facts remembered (least recently used forgotten first). */
  entries: number;
  /** How long one is remembered. */
  ttlMs: number;
}

export const DEFAULT_VERDICT_MEMORY: VerdictMemoryLimits = { entries: 20_000, ttlMs: 15 * 60_000 };

type Fact = 'settled' | 'stale' | 'own-task' | 'mismatch' | 'closed';

const chainKey = (k: RelayKey) => JSON.stringify(['chain', k.workflowId, k.run]);
const stepKey = (k: RelayKey) => JSON.stringify(['step', k.workflowId, k.run, k.step]);
const attemptKey = (k: RelayKey) => JSON.stringify(['attempt', k.workflowId, k.run, k.step, k.attempt]);
const taskKey = (k: RelayKey, taskId: string) =>
  JSON.stringify(['task', k.workflowId, k.run, k.step, k.attempt, taskId]);

export class VerdictMemory {
  private readonly facts = new Map<string, { fact: Fact; untilMs: number }>();

  constructor(
    private readonly limits: VerdictMemoryLimits = DEFAULT_VERDICT_MEMORY,
    private readonly now: () => number = Date.now,
  ) {}

  /** The verdict the stage would give again, when a remembered fact decides it. */
  recall(key: RelayKey, taskId: string | undefined, status: string | undefined): CallbackVerdict | undefined {
    if (key.run === undefined) return undefined;
    if (this.get(stepKey(key)) === 'settled') return 'settled';
    if (this.get(attemptKey(key)) === 'stale') return 'stale';
    if (taskId === undefined) return undefined;
    const fact = this.get(taskKey(key, taskId));
    if (fact === 'mismatch') return 'mismatch';
    if (fact === 'own-task' && status !== undefined && isPassingState(key.step, status)) return 'passing';
    return undefined;
  }

  /** Keeps what the stage's answer proves for good; other verdicts teach nothing lasting. */
  learn(key: RelayKey, taskId: string | undefined, verdict: CallbackVerdict): void {
    if (key.run === undefined) return;
    if (verdict === 'settled') this.set(stepKey(key), 'settled');
    else if (verdict === 'stale') this.set(attemptKey(key), 'stale');
    else if (taskId === undefined) return;
    else if (verdict === 'passing') this.set(taskKey(key, taskId), 'own-task');
    else if (verdict === 'mismatch') this.set(taskKey(key, taskId), 'mismatch');
  }

  /**
   * No run of the URL's chain is open (the workflow is unknown, or its latest run closed).
   * Kept for the memory's ttl only: `temporal workflow reset` can reopen a chain.
   */
  closeChain(key: RelayKey): void {
    if (key.run !== undefined) this.set(chainKey(key), 'closed');
  }

  /** Whether a callback of this URL can be refused before its body is read. */
  chainClosed(key: RelayKey): boolean {
    return key.run !== undefined && this.get(chainKey(key)) === 'closed';
  }

  get size(): number {
    return this.facts.size;
  }

  private get(k: string): Fact | undefined {
    const entry = this.facts.get(k);
    if (!entry) return undefined;
    if (entry.untilMs <= this.now()) {
      this.facts.delete(k);
      return undefined;
    }
    return entry.fact;
  }

  private set(k: string, fact: Fact): void {
    this.facts.delete(k);
    this.facts.set(k, { fact, untilMs: this.now() + this.limits.ttlMs });
    while (this.facts.size > this.limits.entries) this.facts.delete(this.facts.keys().next().value as string);
  }
}
