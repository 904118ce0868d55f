/**
 * What a paid create keeps of the pipeline's state (src/workflows/create/README.md): its
 * attempts whose outcome is unknown, the Retry-After holds, the creates in flight, the
 * operator's decisions and the spend reservations. The runtime holds one (`rt.creates`) and
 * composes its part of the continue-as-new carry from it. Created inside the workflow function.
 */
import type { VendorTaskKind, VendorTaskRecord } from '../../contract/messages';
import type { RuntimeCarry } from '../../contract/carry';
import { Holds } from './holds';
import { OperatorDecisions, type CreatePipeline } from './operator';
import { SpendBook } from './spend-book';
import { grantRead, regrant, settleCreate, takeCreate, type SpendRuntime } from './spend';
import type { PulledAnswer, PulledAsk } from '../../contract/ledger';

/** What the create protocol (create.ts, spend.ts) is handed as `rt`: PipelineRuntime gives it. */
export interface CreateRuntime extends CreatePipeline, SpendRuntime {
  readonly creates: CreateDesk;
}

/** The create's part of RuntimeCarry. */
export type CreateCarry = Pick<RuntimeCarry, 'holds' | 'ambiguous' | 'spend'>;

export class CreateDesk {
  /** Steps whose last attempt has an unknown outcome: a next run resumes reconciling it, never creates. */
  private readonly ambiguous: Record<string, number>;
  /** Create activities in flight: continue-as-new waits for them (a lost answer would mean a second create). */
  private inFlight = 0;
  /** The Retry-After holds of every vendor interface (holds.ts). */
  readonly holds: Holds;
  /** The pipeline's spend reservations (spend.ts). */
  readonly spend: SpendBook;
  /** The `resolveCreate` Update and the waits it answers (operator.ts). */
  readonly operator: OperatorDecisions;

  constructor(
    carry: CreateCarry,
    private readonly pipeline: CreatePipeline & SpendRuntime,
  ) {
    this.holds = new Holds(carry.holds);
    this.ambiguous = { ...carry.ambiguous };
    this.spend = new SpendBook(carry.spend);
    this.spend.listen();
    this.operator = new OperatorDecisions(pipeline);
  }

  /** The create's part of the carry, in RuntimeCarry's own fields (`spend` only once a ledger was asked). */
  get carry(): CreateCarry {
    const spent = Object.keys(this.spend.carry.ledgers).length > 0;
    return { holds: this.holds.carry, ambiguous: this.ambiguous, ...(spent ? { spend: this.spend.carry } : {}) };
  }

  /**
   * Before an attempt's create: one reserved create of its kind from the tenant's ledger
   * (spend.ts; nothing when tenants are off). The same promise, no async layer of its own.
   */
  take(step: string, attempt: number, kind: VendorTaskKind): Promise<PulledAsk | undefined> {
    return takeCreate(this.pipeline, step, attempt, kind);
  }

  /** A create read its pipeline's plan granted (it came back with a result). */
  grantRead(): void {
    grantRead(this.pipeline);
  }

  /** A create found the plan not granted and sent nothing: ask again, or the budget policy (spend.ts). */
  regrant(answer: PulledAnswer): Promise<void> {
    return regrant(this.pipeline, answer);
  }

  /** An attempt's outcome for its spend: confirmed when a task exists, released when provably not created. */
  settle(step: string, attempt: number, outcome: 'confirm' | 'release'): void {
    settleCreate(this.pipeline, step, attempt, outcome);
  }

  /** A create activity was scheduled: continue-as-new waits until it is answered (create.ts, `creating`). */
  createSent(): void {
    this.inFlight++;
  }

  /** A create activity answered (a result or a failure). */
  createAnswered(): void {
    this.inFlight--;
  }

  /** Create activities not yet answered (a slot is given back only when none is). */
  get createsPending(): number {
    return this.inFlight;
  }

  /** The attempt of `step` whose outcome is unknown, if any: a next run resumes reconciling it, never creates. */
  ambiguousAttempt(step: string): number | undefined {
    return this.ambiguous[step];
  }

  setAmbiguous(step: string, attempt: number | undefined): void {
    if (attempt === undefined) delete this.ambiguous[step];
    else this.ambiguous[step] = attempt;
  }

  /** A step's task id, recorded the moment it is known: shown, matched to its callbacks, no longer ambiguous. */
  record(task: Omit<VendorTaskRecord, 'orphan' | 'recordedAt'>): void {
    const { board, book } = this.pipeline;
    const existing = board.vendorTasks.find((t) => t.kind === task.kind && t.id === task.id);
    if (existing) {
      if (task.state) existing.state = task.state;
    } else {
      board.vendorTasks.push({ ...task, recordedAt: new Date().toISOString() });
    }
    book.known(task.step, task.attempt, task.id);
    this.setAmbiguous(task.step, undefined);
    board.refresh();
  }
}
