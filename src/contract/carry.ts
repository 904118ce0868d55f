/**
 * What a pipeline carries across continue-as-new, as plain data: the runtime's status,
 * holds and pending decisions, and the callback book's attempts and offers. The workflow's
 * runtime (src/workflows/lib/pipeline-runtime.ts, composed of the callback book and the create
 * desk, src/workflows/create/desk.ts) rebuilds its working
 * state from it; nothing here knows that state's insides.
 */
import type { Offer, OfferExpectation, OfferedTaskKind } from './offers';
import type { PipelineStatus, VendorTaskKind } from './status';
import type { TenantPolicy } from './tenancy';
import type { CreateCount, PulledAsk } from './ledger';

/** What continue-as-new carries besides the finished stages' outputs. */
export interface RuntimeCarry {
  status: PipelineStatus;
  /** Per vendor interface: no call before this time (epoch ms, the latest Retry-After). */
  holds: Record<string, number>;
  /** The callback inbox: attempts in flight with their offers (undefined on a first run). */
  book: BookCarry | undefined;
  /** Steps whose last create attempt has an unknown outcome (reconcile or an operator is pending). */
  ambiguous?: Record<string, number>;
  /** The operator wait's reason without its offers (status.waiting carries the rest of the wait). */
  waitingBase?: string;
  /** The worker's codec was strict when this was carried: a continued run judges signals so from its first task. */
  codecStrict?: boolean;
  /** The tenant policy of the first run (docs/tenants.md): a continued run keeps its tenant, slot and prices. */
  tenantPolicy?: TenantPolicy;
  /** The pipeline's spend reservations (docs/tenants.md, "Budgets"). */
  spend?: SpendCarry;
}

type Counts = Partial<Record<VendorTaskKind, number>>;

/** A pipeline's reservations: per ledger id, creates reserved, taken by attempts not settled, and used. */
export interface SpendCarry {
  ledgers: Record<string, { reserved: Counts; taken: Counts; used: Counts }>;
  /** `<step>/<attempt>` → the ledger and kind of the create it took. */
  attempts: Record<string, { ledger: string; kind: VendorTaskKind }>;
  /** Creates reserved beyond the plan so far (their keys are `extra-<n>`). */
  extras: number;
  /** The pipeline has recorded its spend and told its ledgers. */
  ended?: true;
  /**
   * The plan's ask whose answer the next create reads (the check asked with `pull`): its
   * creates are held as reserved until a create finds them granted or refused.
   */
  pull?: PulledAsk & { creates: CreateCount[]; periodEndMs: number };
}

/** The book as continue-as-new carries it (plain data). */
export interface BookCarry {
  attempts: AttemptCarry[];
  settled: string[];
  signals: [string, number][];
}

/** How a step's offered ids are checked: the vendor query of its kind, and what its create asked for. */
export interface ProofSpec {
  profile: string;
  kind: OfferedTaskKind;
  /** Endpoint counted for the check's vendor query, e.g. "generation.get". */
  endpoint: string;
  expect: OfferExpectation;
}

/** One create attempt as the book carries it: its offers as a list. */
export interface AttemptCarry {
  step: string;
  attempt: number;
  kind: VendorTaskKind;
  proof?: ProofSpec;
  /** Workflow time the create was sent, and when its outcome came back: the `created_at` window. */
  fromMs: number;
  toMs?: number;
  taskId?: string;
  offers: Offer[];
  /** Offers past MAX_OFFERS_PER_ATTEMPT, not checked. */
  dropped: number;
  /** Workflow time of its last vendor check of an offer (checks are spaced). */
  checkedAtMs?: number;
  /** Refused offers no longer listed (past MAX_REFUSED_KEPT). */
  forgotten?: number;
}
