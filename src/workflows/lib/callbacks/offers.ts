/**
 * Proof that a task id a callback offers was created by this create attempt. Whoever holds
 * a callback URL can POST any id to it, so an id is adopted only when all of these hold:
 * the vendor knows it; its own answer agrees with this create (same model, same media,
 * where the answer carries them); it was created between the attempt's start and its
 * failure (`created_at`, where the answer carries it); and no other pipeline claims it
 * (search attribute ReelflowVendorTaskIds). Pure: an activity gathers the facts
 * (src/activities/claims.ts), the workflow judges them here.
 */
import { TASK_ID_PATTERN, type Offer, type OfferExpectation, type OfferedTaskFacts } from '../../../contract/offers';
import { printable } from '../../../contract/printable';

/** Vendor clocks and ours differ a little, and `created_at` has whole seconds. */
export const CREATED_AT_SLACK_MS = 30_000;
/**
 * Distinct task ids waiting for their check (or proven) per create attempt; further ids are
 * not checked (nor adopted). Refused ids are not counted: a forger cannot lock the genuine one out.
 */
export const MAX_OFFERS_PER_ATTEMPT = 8;
/**
 * Callback hints (no task id, or the attempt's known task) one attempt acts on; past it the
 * stage drops them and the receiver is told to stop.
 */
export const MAX_SIGNALS_PER_STEP = 40;
/** Vendor checks of offered ids per attempt: at most one per this many ms of workflow time (a durable timer). */
export const OFFER_CHECK_INTERVAL_MS = 1_000;
/** Refused ids an attempt keeps listed (and deduplicated); older ones are only counted. */
export const MAX_REFUSED_KEPT = 16;

/** Workflow time (ms) when the attempt's create was sent, and when its outcome came back. */
export interface AttemptWindow {
  fromMs: number;
  toMs: number;
}

export function idProblem(id: string): string | undefined {
  return TASK_ID_PATTERN.test(id) ? undefined : 'not a vendor task id (letters, digits, . _ : - only, at most 128)';
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Every reason the facts refute this create's authorship of `id`; empty means proven. */
export function judgeOffer(
  id: string,
  facts: OfferedTaskFacts,
  expect: OfferExpectation,
  window: AttemptWindow,
): string[] {
  if (!facts.found)
    return [`the vendor does not know it${facts.notFound ? ` (${printable(facts.notFound, 160)})` : ''}`];
  const reasons: string[] = [];
  if (facts.id !== undefined && facts.id !== id)
    reasons.push(`the vendor answered for task ${printable(facts.id, 80)}`);
  if (expect.model !== undefined && facts.model !== undefined && facts.model !== expect.model) {
    reasons.push(`its model is ${printable(facts.model, 80)}, this create asked for ${printable(expect.model, 80)}`);
  }
  if (facts.createdAtSec !== undefined) {
    const at = facts.createdAtSec * 1000;
    if (at < window.fromMs - CREATED_AT_SLACK_MS || at > window.toMs + CREATED_AT_SLACK_MS) {
      reasons.push(
        `created ${iso(at)}, outside this attempt's ${iso(window.fromMs)} to ${iso(window.toMs)} (± ${CREATED_AT_SLACK_MS / 1000} s)`,
      );
    }
  }
  if (expect.urls) {
    if (facts.itemCount !== undefined && facts.itemCount !== expect.urls.length) {
      reasons.push(`it holds ${facts.itemCount} media, this batch submitted ${expect.urls.length}`);
    }
    const foreign = (facts.sourceUrls ?? []).filter((u) => !expect.urls!.includes(u)).length;
    if (foreign > 0) reasons.push(`it reviews ${foreign} media this batch did not submit`);
  }
  if (facts.claimedBy.length > 0)
    reasons.push(`claimed by pipeline ${facts.claimedBy.map((w) => printable(w, 120)).join(', ')}`);
  return reasons;
}

/** For an operator: each offered id and what became of it. */
export function describeOffers(offers: readonly Offer[], dropped: number, forgotten = 0): string {
  const parts = offers.map((o) => {
    const what =
      o.state === 'refused'
        ? `refused: ${o.why}`
        : o.state === 'unchecked'
          ? o.why
          : o.state === 'proven'
            ? 'proven'
            : 'being checked';
    return `${printable(o.id, 130)} (${what})`;
  });
  if (forgotten > 0) parts.push(`${forgotten} further refused id(s) not listed`);
  if (dropped > 0) parts.push(`${dropped} further id(s) not checked (limit ${MAX_OFFERS_PER_ATTEMPT} per attempt)`);
  return parts.join(' | ');
}
