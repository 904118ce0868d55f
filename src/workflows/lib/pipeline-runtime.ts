/**
 * The one runtime of a pipeline workflow, shared by every stage module, composed of its
 * parts: what the pipeline shows (`rt.board`, status/status-board.ts); callbacks, hints and task
 * ids offered for proof (`rt.book`, callbacks/callback-book.ts); what a paid create keeps (`rt.creates`,
 * src/workflows/create/README.md: ambiguous attempts, Retry-After holds, creates in flight,
 * operator decisions, spend). Here: continue-as-new, local activities in turn and the
 * handlers. Created inside the workflow function: no module-level state.
 */
import { allHandlersFinished, condition, log, setHandler, workflowInfo } from '@temporalio/workflow';
import { callbackVerdictQuery, statusQuery, vendorCallbackSignal } from '../../contract/messages';
import { isPlaintext } from '../../codec/plaintext-mark';
import type { RuntimeCarry } from '../../contract/carry';
import type { TenantPolicy } from '../../contract/tenancy';
import { CallbackBook } from './callbacks/callback-book';
import { StatusBoard } from './status/status-board';
import { CreateDesk } from '../create/desk';
import type { Behaviour } from './behaviour';

/** Default read-after-write grace (definition: options.deadlines.notFoundGrace). */
export const DEFAULT_NOT_FOUND_GRACE_MS = 60_000;

export class PipelineRuntime {
  /** What the pipeline shows: status, details, search attributes (status/status-board.ts). */
  readonly board: StatusBoard;
  /** What a paid create keeps (src/workflows/create/README.md). */
  readonly creates: CreateDesk;
  /** The callbacks of this pipeline: attempts, hints, offers and their proof (callbacks/callback-book.ts). */
  readonly book: CallbackBook;

  /** Continue as new past this many history events (or when the server suggests it). */
  historyLimit = Number.POSITIVE_INFINITY;

  /**
   * The worker's codec refuses plaintext (REELFLOW_CODEC_STRICT=1): known from the recorded
   * result of validateDefinition, so replay judges alike; runs recorded before never have it.
   * A continued run starts from its carry's value (its input: the same in replay); a first
   * run, until that result, judges leniently, when it has no attempt a signal could reach.
   */
  codecStrict = false;

  /**
   * The tenant policy (docs/tenants.md): from the recorded result of validateDefinition, or
   * the carry of a continued run (which keeps its first run's). Undefined when tenants are off.
   */
  tenantPolicy: TenantPolicy | undefined;

  /** The last local activity asked in turn (proxies.ts): the next one starts when it has settled. */
  private localTail: Promise<unknown> = Promise.resolve();

  /** Read-after-write grace after a create attempt (options.deadlines.notFoundGrace). */
  notFoundGraceMs = DEFAULT_NOT_FOUND_GRACE_MS;

  /**
   * @param continueAsNew the workflow's own continue-as-new with this runtime's carry; never returns
   * @param behaviour what the first workflow task decided (behaviour.ts): read here, never asked again
   */
  constructor(
    carry: RuntimeCarry,
    private readonly continueAsNew: (carry: RuntimeCarry) => Promise<never>,
    readonly behaviour: Behaviour,
  ) {
    this.board = new StatusBoard(carry.status, carry.waitingBase ?? '');
    // Handlers in the order they always had: the spend signals (in the desk), then the rest.
    this.creates = new CreateDesk(carry, this);
    this.codecStrict = carry.codecStrict === true;
    this.tenantPolicy = carry.tenantPolicy;
    // The book gets the board: it counts its checks there and lists its offers in an operator's wait.
    this.book = new CallbackBook(carry.book, this.board);
    setHandler(statusQuery, () => this.board.status);
    setHandler(vendorCallbackSignal, (cb) => this.callbackSignal(cb));
    setHandler(callbackVerdictQuery, (cb) => this.book.askedVerdict(cb));
    this.creates.operator.listen();
  }

  /** Runs a local activity call when the ones asked before it have settled (proxies.ts, LocalTurns). */
  inTurn<T>(call: () => Promise<T>): Promise<T> {
    const mine = this.localTail.then(call);
    this.localTail = mine.catch(() => undefined);
    return mine;
  }

  /** The carry, composed from the parts in RuntimeCarry's field order (src/contract/carry.ts). */
  carry(): RuntimeCarry {
    const { holds, ambiguous, spend } = this.creates.carry;
    return {
      status: this.board.status,
      holds,
      book: this.book.carry(),
      ambiguous,
      waitingBase: this.board.waitingBase,
      ...(this.codecStrict ? { codecStrict: true } : {}),
      ...(this.tenantPolicy ? { tenantPolicy: this.tenantPolicy } : {}),
      ...(spend ? { spend } : {}),
    };
  }

  /**
   * Called where a stage may safely stop (between polls, in long waits): past the history
   * limit the pipeline continues as new with its state. Handlers in flight (an Update
   * waiting for its decision to be taken) finish first, so nothing is lost at the switch.
   */
  async checkpoint(): Promise<void> {
    if (!this.historyLong()) return;
    const { creates } = this;
    // An Update whose decision is not taken yet must be answered in this run.
    await condition(() => (allHandlersFinished() && creates.createsPending === 0) || creates.operator.undelivered);
    if (creates.operator.undelivered) return;
    await this.continueAsNew(this.carry());
  }

  /** Past the history limit, or the server suggests continuing as new. */
  historyLong(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength > this.historyLimit;
  }

  /** A callback signal; a plaintext one (from a client without the codec) is dropped when strict. */
  private callbackSignal(cb: unknown): void {
    if (this.codecStrict && isPlaintext(cb)) {
      log.warn(
        'vendorCallback signal dropped: it arrived in plaintext and this worker refuses plaintext (REELFLOW_CODEC_STRICT=1)',
      );
      return;
    }
    this.book.receive(cb);
  }
}
