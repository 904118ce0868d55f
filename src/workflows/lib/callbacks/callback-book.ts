/**
 * What callbacks may do to a stage. A callback is a hint; a task id it names for an
 * attempt whose task is unknown is an OFFER, adopted only with proof (offers.ts), checked
 * by one activity per distinct id. Duplicates, settled steps and floods cost no vendor
 * query, and no history event either when the receiver asks `callbackVerdict` before it
 * signals: that query and the signal handler apply the same rule, verdict().
 *
 * Bounds (docs/security.md, "Callbacks"): refused ids free their place (a forger cannot lock
 * the genuine offer out), budgets count per attempt, vendor checks of one attempt are at least
 * OFFER_CHECK_INTERVAL_MS apart (a durable timer), callback URLs bind the pipeline's first run
 * id, and only this run chain's claims are its own.
 *
 * The book gets what it needs from the pipeline as data, on its StatusBoard
 * (../status/status-board.ts): the vendor tasks, the call counts, the stage for command summaries, an
 * operator's wait to list the offers in. It never calls the runtime.
 */
import { condition, isCancellation, log, sleep, workflowInfo } from '@temporalio/workflow';
import type { AttemptCarry, BookCarry, ProofSpec } from '../../../contract/carry';
import type { Offer, OfferExpectation, OfferedTaskFacts } from '../../../contract/offers';
import type { CallbackVerdict, VendorCallbackSignal, VendorTaskKind } from '../../../contract/messages';
import { PASSING_STATES } from '../../../contract/stages';
import { failureMessage } from '../failures';
import {
  describeOffers,
  idProblem,
  judgeOffer,
  MAX_OFFERS_PER_ATTEMPT,
  MAX_REFUSED_KEPT,
  MAX_SIGNALS_PER_STEP,
  type AttemptWindow,
  OFFER_CHECK_INTERVAL_MS,
} from './offers';
import { printable } from '../../../contract/printable';
import { QUERY_OPTIONS, queries } from '../proxies';
import type { StatusBoard } from '../status/status-board';

/** The book's working form of an attempt: its offers by id. */
interface Attempt extends Omit<AttemptCarry, 'offers'> {
  offers: Map<string, Offer>;
}

const keyOf = (step: string, attempt: number) => `${step}#${attempt}`;
const fingerprint = (cb: VendorCallbackSignal) =>
  JSON.stringify([cb.step, cb.attempt, cb.taskId ?? null, cb.status ?? null]);

/** Signals come from outside: read their fields by type, never trust the shape. */
function normalize(cb: unknown): VendorCallbackSignal | undefined {
  if (!cb || typeof cb !== 'object') return undefined;
  const c = cb as Record<string, unknown>;
  if (typeof c.step !== 'string' || typeof c.attempt !== 'number') return undefined;
  return {
    step: c.step,
    attempt: c.attempt,
    ...(typeof c.taskId === 'string' ? { taskId: c.taskId } : {}),
    ...(typeof c.status === 'string' ? { status: c.status } : {}),
    ...(typeof c.run === 'string' ? { run: c.run } : {}),
  };
}

/**
 * The pipeline's own workflow ids: its own, and a parent's if a caller started it as a child
 * (reelflow starts each pipeline as one top-level workflow). Their claims are not "another pipeline".
 */
function ownWorkflowIds(): string[] {
  const info = workflowInfo();
  return info.parent ? [info.workflowId, info.parent.workflowId] : [info.workflowId];
}

/** Under its own workflow id, only this run chain's claims are its own (an id may be reused). */
function ownChain(): { workflowId: string; firstRunId: string } {
  const info = workflowInfo();
  return { workflowId: info.workflowId, firstRunId: info.firstExecutionRunId };
}

const liveOffers = (a: Attempt): number => [...a.offers.values()].filter((o) => o.state !== 'refused').length;

export class CallbackBook {
  private readonly attempts = new Map<string, Attempt>();
  private readonly current = new Map<string, Attempt>();
  private readonly settled = new Set<string>();
  private readonly seen = new Set<string>();
  private readonly signals = new Map<string, number>();
  private readonly hints = new Set<string>();
  private readonly lastQuery = new Map<string, number>();
  private readonly queryCount = new Map<string, number>();
  private pumping = false;

  constructor(
    carry: BookCarry | undefined,
    /** What the pipeline shows: read for its vendor tasks, written with counts, orphans and offers. */
    private readonly board: StatusBoard,
  ) {
    for (const a of carry?.attempts ?? []) {
      const restored: Attempt = { ...a, offers: new Map(a.offers.map((o) => [o.id, o])) };
      this.attempts.set(keyOf(a.step, a.attempt), restored);
      this.current.set(a.step, restored); // attempts are carried in order: the last one is current
    }
    carry?.settled.forEach((step) => this.settled.add(step));
    carry?.signals.forEach(([key, n]) => this.signals.set(key, n));
    if (carry?.attempts.some((a) => a.offers.some((o) => o.state === 'pending'))) this.wake();
  }

  /**
   * What continue-as-new carries: every attempt with its offers (an offer being checked is
   * checked again), settled steps and signal counts, so a late callback is still judged,
   * and still ends an operator's wait, in the next run.
   */
  carry(): BookCarry {
    return {
      attempts: [...this.attempts.values()].map((a) => ({
        ...a,
        offers: [...a.offers.values()].map((o) => (o.state === 'checking' ? { ...o, state: 'pending' as const } : o)),
      })),
      settled: [...this.settled],
      signals: [...this.signals],
    };
  }

  // ---- attempts, as the create protocol runs them

  /**
   * Marks the attempt in flight for a step, so callbacks can be matched to it; `proof`
   * says how a task id offered for it is checked (none: offers are refused).
   */
  beginAttempt(step: string, attempt: number, kind: VendorTaskKind, proof?: ProofSpec): void {
    const a: Attempt = { step, attempt, kind, proof, fromMs: Date.now(), offers: new Map(), dropped: 0 };
    this.attempts.set(keyOf(step, attempt), a);
    this.current.set(step, a);
  }

  /**
   * The attempt's create came back, naming its task or not: the window for `created_at`
   * closes, and its offers can be checked now.
   */
  endAttempt(step: string, attempt: number, taskId?: string): void {
    const a = this.attempts.get(keyOf(step, attempt));
    if (!a) return;
    a.toMs ??= Date.now();
    if (taskId !== undefined) {
      a.taskId = taskId;
      // A callback that came before the create's answer and names its task is news of that task.
      if (a.offers.delete(taskId)) this.hints.add(step);
    }
    this.wake();
  }

  known(step: string, attempt: number, taskId: string): void {
    const a = this.attempts.get(keyOf(step, attempt));
    if (a) a.taskId = taskId;
  }

  /** The step's task reached its end: later callbacks for it are dropped unqueried. */
  settle(step: string): void {
    this.settled.add(step);
    this.hints.delete(step);
  }

  /** The task id a callback offered for this attempt and that passed the proof, if any. */
  provenTask(step: string, attempt: number): string | undefined {
    for (const o of this.attempts.get(keyOf(step, attempt))?.offers.values() ?? [])
      if (o.state === 'proven') return o.id;
    return undefined;
  }

  /** Whether any callback offered a task id for this attempt (checked or not). */
  hasOffers(step: string, attempt: number): boolean {
    const a = this.attempts.get(keyOf(step, attempt));
    return Boolean(a && (a.offers.size > 0 || a.dropped > 0 || (a.forgotten ?? 0) > 0));
  }

  /** The offers of this attempt and what became of each, for an operator's wait. */
  describe(step: string, attempt: number): string {
    const a = this.attempts.get(keyOf(step, attempt));
    return a ? describeOffers([...a.offers.values()], a.dropped, a.forgotten) : '';
  }

  /** What a create attempt's callback URL binds (the activity builds the URL): the step, the attempt and the first run. */
  callbackRef(step: string, attempt: number): { step: string; attempt: number; run: string } {
    return { step, attempt, run: workflowInfo().firstExecutionRunId };
  }

  /** Workflow time of this step's last vendor query made outside the poll loop (an offer's check), if any. */
  lastQueryAt(step: string): number | undefined {
    return this.lastQuery.get(step);
  }

  /** How many vendor queries of this step were made outside the poll loop (offers' checks) in this run. */
  queriesOf(step: string): number {
    return this.queryCount.get(step) ?? 0;
  }

  /** Waits up to `ms` or until a callback for `step` brings news; returns true on a hint. */
  async waitForHint(step: string, ms: number, summary: string): Promise<boolean> {
    const hinted = await condition(() => this.hints.has(step), ms, { summary });
    this.hints.delete(step);
    return hinted;
  }

  // ---- callbacks

  /** What receive() would do with this callback; read-only (the receiver's query). */
  verdict(raw: unknown): CallbackVerdict {
    const cb = normalize(raw);
    // Every URL binds the first run: a callback without it, or naming another run under this
    // workflow id, is an earlier pipeline's.
    if (!cb || cb.run !== workflowInfo().firstExecutionRunId) return 'stale';
    if (this.settled.has(cb.step)) return 'settled';
    if (this.seen.has(fingerprint(cb))) return 'duplicate';
    const a = this.attempts.get(keyOf(cb.step, cb.attempt));
    if (!a) return 'stale';
    const id = cb.taskId;
    if (id === undefined || id === a.taskId) {
      if (a !== this.current.get(cb.step)) return 'stale';
      // Budgets count per attempt; a state the last query already gave is no news.
      if ((this.signals.get(keyOf(a.step, a.attempt)) ?? 0) >= MAX_SIGNALS_PER_STEP) return 'limit';
      return id !== undefined && cb.status !== undefined && this.board.stateOf(id) === cb.status ? 'duplicate' : 'new';
    }
    if (a.taskId !== undefined) return 'mismatch';
    const offer = a.offers.get(id);
    if (offer) return offer.state === 'unchecked' ? 'new' : 'duplicate';
    return liveOffers(a) >= MAX_OFFERS_PER_ATTEMPT ? 'limit' : 'new';
  }

  /**
   * The receiver's question before it signals: verdict(), except that a callback naming a
   * state its known task passes through (running, QUEUED…) is `passing`, no news to a poll
   * that waits for the end, and is not signalled. Only the query answers so (a query writes
   * no history): a signal that still arrives is judged by verdict(), as recorded runs were.
   */
  askedVerdict(raw: unknown): CallbackVerdict {
    const verdict = this.verdict(raw);
    const cb = normalize(raw);
    if (verdict !== 'new' || cb?.taskId === undefined || cb.status === undefined) return verdict;
    const a = this.attempts.get(keyOf(cb.step, cb.attempt));
    const passing =
      a && a.kind !== 'assetGroup' && cb.taskId === a.taskId && PASSING_STATES[a.kind].includes(cb.status);
    return passing ? 'passing' : verdict;
  }

  /** The signal handler: counts every signal, acts only on `new` ones. */
  receive(raw: unknown): void {
    const verdict = this.verdict(raw);
    const cb = normalize(raw);
    if (!cb) return;
    const a = this.attempts.get(keyOf(cb.step, cb.attempt));
    if (verdict === 'limit' && a && cb.taskId !== undefined && a.taskId === undefined && !a.offers.has(cb.taskId)) {
      a.dropped++;
      this.offersChanged(a);
    }
    if (verdict !== 'new' || !a) return;
    this.seen.add(fingerprint(cb));
    if (cb.taskId === undefined || cb.taskId === a.taskId) {
      // The hints an attempt acted on are counted; offers have their own budget.
      const key = keyOf(a.step, a.attempt);
      this.signals.set(key, (this.signals.get(key) ?? 0) + 1);
      this.hints.add(cb.step);
      return;
    }
    a.offers.set(cb.taskId, { id: cb.taskId, state: 'pending' });
    this.offersChanged(a);
    this.wake();
  }

  /** An offer of this attempt changed: an operator waiting for it sees the offers in the reason. */
  private offersChanged(a: Attempt): void {
    this.board.showOffers(a.step, a.attempt, this.describe(a.step, a.attempt));
  }

  // ---- checking offers, one at a time, once their attempt has ended

  private wake(): void {
    if (!this.pumping) void this.pump();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      for (let next = this.nextPending(); next; next = this.nextPending()) {
        if (!(await this.check(...next))) return;
      }
    } finally {
      this.pumping = false;
    }
  }

  private nextPending(): [Attempt, Offer] | undefined {
    for (const a of this.attempts.values()) {
      if (a.toMs === undefined) continue;
      for (const o of a.offers.values()) if (o.state === 'pending') return [a, o];
    }
    return undefined;
  }

  /** Checks one offer; false when the stage is being cancelled (stop checking). */
  private async check(a: Attempt, offer: Offer): Promise<boolean> {
    offer.state = 'checking';
    // One vendor check per attempt per interval, however many ids a forger sends.
    if (this.unqueried(a, offer) === undefined && !(await this.spaced(a))) {
      offer.state = 'pending';
      return false;
    }
    const unqueried = this.unqueried(a, offer);
    if (unqueried !== undefined || !a.proof) {
      this.conclude(a, offer, [unqueried ?? 'no proof']);
      return true;
    }
    const proof = a.proof;
    try {
      const facts = await this.inspect(a, proof, offer.id, 'offered by a callback');
      this.conclude(
        a,
        offer,
        judgeOffer(offer.id, facts, proof.expect, { fromMs: a.fromMs, toMs: a.toMs ?? Date.now() }),
      );
      return true;
    } catch (err) {
      offer.state = isCancellation(err) ? 'pending' : 'unchecked';
      offer.why = `could not be checked: ${printable(failureMessage(err), 160)}`;
      this.offersChanged(a);
      return !isCancellation(err);
    }
  }

  /** One activity: what the vendor answers for `taskId` and which other pipelines claim it. */
  private inspect(a: Attempt, proof: ProofSpec, taskId: string, by: string): Promise<OfferedTaskFacts> {
    this.board.count(proof.endpoint);
    this.lastQuery.set(a.step, Date.now());
    this.queryCount.set(a.step, this.queriesOf(a.step) + 1);
    return queries.inspectOfferedTask.executeWithOptions(
      {
        ...QUERY_OPTIONS,
        ...this.board.taskOptions,
        summary: this.board.summary(`check ${proof.kind} task ${taskId}, ${by}`),
      },
      [{ profile: proof.profile, kind: proof.kind, taskId, exclude: ownWorkflowIds(), chain: ownChain() }],
    );
  }

  // ---- a task id an operator gives (resolveCreate): the same facts, judged by operator-proof.ts

  /**
   * The facts for an operator's task id for this attempt, with what its create asked for and
   * its window; or why it is refused unqueried. Records no offer: the Update answers the operator.
   */
  async operatorFacts(
    step: string,
    attempt: number,
    taskId: string,
  ): Promise<{ refused: string } | { facts: OfferedTaskFacts; expect: OfferExpectation; window: AttemptWindow }> {
    const a = this.attempts.get(keyOf(step, attempt));
    const owner = this.board.stepOwning(taskId);
    const unqueried =
      (a?.proof ? undefined : `step ${step} has no check for a task id; resubmit or abandon`) ??
      (owner !== undefined ? `task ${printable(taskId, 130)} is already the task of step ${owner}` : undefined);
    if (unqueried !== undefined || !a?.proof) return { refused: unqueried ?? 'no proof' };
    const facts = await this.inspect(a, a.proof, taskId, 'given by an operator');
    return { facts, expect: a.proof.expect, window: { fromMs: a.fromMs, toMs: a.toMs ?? Date.now() } };
  }

  /** Why the offer is refused without asking the vendor, if it is. */
  private unqueried(a: Attempt, offer: Offer): string | undefined {
    const owner = this.board.stepOwning(offer.id);
    return (
      (a.taskId !== undefined ? `this attempt's task is ${printable(a.taskId, 130)}` : undefined) ??
      idProblem(offer.id) ??
      (owner !== undefined && owner !== a.step ? `it is already the task of step ${owner}` : undefined) ??
      (a.proof ? undefined : 'this step takes no task id from a callback')
    );
  }

  /**
   * Waits (a durable timer) until this attempt's last check is OFFER_CHECK_INTERVAL_MS old; false when cancelled.
   * Every check after the attempt's first starts the timer (1 ms when the interval is over): whether a
   * timer starts follows from the history, never from a Date.now() that can be stale live and right on
   * replay after a worker dies (docs/architecture.md, "Workflow time after a worker dies").
   */
  private async spaced(a: Attempt): Promise<boolean> {
    if (a.checkedAtMs !== undefined) {
      const wait = Math.max(1, a.checkedAtMs + OFFER_CHECK_INTERVAL_MS - Date.now());
      try {
        await sleep(wait, { summary: this.board.summary(`${a.step}: next check of an offered task id`) });
      } catch (err) {
        if (isCancellation(err)) return false;
        throw err;
      }
    }
    a.checkedAtMs = Date.now();
    return true;
  }

  /** An attempt keeps the newest MAX_REFUSED_KEPT refused ids (deduplicated, listed); older ones are counted. */
  private forgetOldRefused(a: Attempt): void {
    const refused = [...a.offers.values()].filter((o) => o.state === 'refused');
    for (const o of refused.slice(0, Math.max(0, refused.length - MAX_REFUSED_KEPT))) {
      a.offers.delete(o.id);
      a.forgotten = (a.forgotten ?? 0) + 1;
    }
  }

  private conclude(a: Attempt, offer: Offer, reasons: string[]): void {
    const where = `${a.step} attempt ${a.attempt}: task id ${printable(offer.id, 130)} offered by a callback`;
    if (reasons.length > 0) {
      offer.state = 'refused';
      offer.why = reasons.join('; ');
      log.warn(`${where} is refused: ${offer.why}`);
      this.forgetOldRefused(a);
    } else {
      offer.state = 'proven';
      const waitedFor = a === this.current.get(a.step) && a.taskId === undefined;
      if (!waitedFor && a.taskId === undefined) {
        // A superseded attempt did create a task after all: it may run (and cost) at the vendor.
        this.board.orphan(a.kind, offer.id, a.step, a.attempt);
        log.warn(`${where} is proven: a task of a superseded attempt, recorded as an orphan`);
      }
    }
    this.offersChanged(a);
  }
}
