/**
 * A pipeline's spend reservations as plain bookkeeping (docs/tenants.md, "Budgets"): per
 * ledger, the creates it reserved, took for attempts not settled yet, and used; carried
 * across continue-as-new. spend.ts asks the ledgers; the create desk holds one book (`rt.creates.spend`, desk.ts).
 */
import { setHandler, workflowInfo } from '@temporalio/workflow';
import {
  PLAN_KEY,
  budgetRaisedSignal,
  spendAnsweredSignal,
  type CreateCount,
  type RunChain,
  type SpendAnswer,
  type SpendRecord,
} from '../../contract/ledger';
import type { SpendCarry } from '../../contract/carry';
import type { PlanAsk } from '../../activities/definition';
import type { VendorTaskKind } from '../../contract/status';

type Counts = Partial<Record<VendorTaskKind, number>>;
const add = (c: Counts, kind: VendorTaskKind, n: number) => {
  c[kind] = (c[kind] ?? 0) + n;
  if (c[kind] === 0) delete c[kind];
};

export class SpendBook {
  readonly carry: SpendCarry;
  private readonly asks: Record<string, number> = {};
  private readonly answers: Record<string, SpendAnswer> = {};
  private wakes = 0;
  /** The plan's ask made by the definition check (behaviour `spendInCheck`), until spend.ts takes it. */
  private checkAsk: PlanAsk | undefined;
  /** The wake-ups counted when the plan's ask was left to be pulled: one sent meanwhile is not missed. */
  pullWakes: number | undefined;
  /** The regrant in progress (spend.ts), shared by the creates that found the plan not granted. */
  regranting: Promise<void> | undefined;

  constructor(carry: SpendCarry | undefined) {
    this.carry = carry ?? { ledgers: {}, attempts: {}, extras: 0 };
  }

  get chain(): RunChain {
    const info = workflowInfo();
    return { pipelineId: info.workflowId, firstRunId: info.firstExecutionRunId };
  }

  /** The answer for `key`'s ask `ask`, once the ledger has sent it. */
  answered(key: string, ask: number): SpendAnswer | undefined {
    return this.asks[key] === ask ? this.answers[key] : undefined;
  }

  listen(): void {
    setHandler(spendAnsweredSignal, (a: SpendAnswer) => {
      // Anyone may signal a pipeline: a malformed answer, or one for another chain of this
      // workflow id (an earlier pipeline's, late), is ignored, never thrown.
      if (!a || typeof a !== 'object' || this.asks[a.key] !== a.ask) return;
      if (a.firstRunId === undefined || a.firstRunId === workflowInfo().firstExecutionRunId) this.answers[a.key] = a;
    });
    setHandler(budgetRaisedSignal, () => void this.wakes++);
  }

  /** The check will ask for the plan: its answer is ask 1 of key `plan`, taken from now on. */
  expectCheckAsk(): void {
    this.nextAsk(PLAN_KEY);
  }

  /** What the check asked, once it has (absent: it asked nothing, and the pipeline asks itself). */
  checkAsked(asked: PlanAsk | undefined): void {
    this.checkAsk = asked;
  }

  /** The check's ask of `key`, the first time it is wanted; then the pipeline asks itself. */
  takeCheckAsk(key: string): { asked: PlanAsk; n: number } | undefined {
    const asked = key === PLAN_KEY ? this.checkAsk : undefined;
    this.checkAsk = undefined;
    return asked && { asked, n: this.asks[key] };
  }

  nextAsk(key: string): number {
    this.asks[key] = (this.asks[key] ?? 0) + 1;
    delete this.answers[key];
    return this.asks[key];
  }

  get wakeCount(): number {
    return this.wakes;
  }

  /** A ledger with a reserved create of `kind` not taken yet, if any. */
  freeLedger(kind: VendorTaskKind): string | undefined {
    for (const [id, use] of Object.entries(this.carry.ledgers)) {
      const free = (use.reserved[kind] ?? 0) - (use.taken[kind] ?? 0) - (use.used[kind] ?? 0);
      if (free > 0) return id;
    }
    return undefined;
  }

  /** `creates` reserved in `ledger` (sign -1: a plan held as reserved and then not granted, given up). */
  granted(ledger: string, creates: CreateCount[], sign: 1 | -1 = 1): void {
    const use = (this.carry.ledgers[ledger] ??= { reserved: {}, taken: {}, used: {} });
    for (const c of creates) add(use.reserved, c.kind, sign * c.count);
  }

  take(attemptKey: string, ledger: string, kind: VendorTaskKind): void {
    add(this.carry.ledgers[ledger].taken, kind, 1);
    this.carry.attempts[attemptKey] = { ledger, kind };
  }

  /** An attempt's outcome: confirmed (spent) or released (its create is free again). */
  settle(attemptKey: string, outcome: 'confirm' | 'release'): void {
    const a = this.carry.attempts[attemptKey];
    if (!a) return;
    delete this.carry.attempts[attemptKey];
    const use = this.carry.ledgers[a.ledger];
    add(use.taken, a.kind, -1);
    if (outcome === 'confirm') add(use.used, a.kind, 1);
  }

  /** What the pipeline spent per ledger: confirmed creates, and those still taken (their outcome unknown). */
  record(): SpendRecord {
    const ledgers: SpendRecord['ledgers'] = {};
    for (const [id, use] of Object.entries(this.carry.ledgers)) ledgers[id] = { used: use.used, unresolved: use.taken };
    return { firstRunId: workflowInfo().firstExecutionRunId, ledgers };
  }
}
