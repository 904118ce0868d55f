/**
 * The proof of a task id an operator gives to a `resolveCreate` Update. The operator reads
 * it from the vendor console, and may mistype it or paste another pipeline's: it passes the
 * same proof as a task id a callback offers (offers.ts judgeOffer, over the facts the
 * inspectOfferedTask activity gathers), or the Update fails with TaskIdRefused and the
 * pipeline goes on waiting. Pure: the runtime gathers the facts, this says why not.
 */
import type { OfferExpectation, OfferedTaskFacts } from '../../../contract/offers';
import { judgeOffer, type AttemptWindow } from './offers';
import { printable } from '../../../contract/printable';

/** What the offers' proof knows of the waiting attempt, and what the vendor answered for the id. */
export interface OperatorIdCheck {
  taskId: string;
  facts: OfferedTaskFacts;
  expect: OfferExpectation;
  window: AttemptWindow;
  /** Read-after-write grace (options.deadlines.notFoundGrace), counted from the attempt's end. */
  notFoundGraceMs: number;
  /** Workflow time of the check. */
  nowMs: number;
}

/**
 * Why the id is refused (undefined: proven). A 404 within the grace after the attempt may be
 * the vendor's read-after-write lag: the operator is told when to try again.
 */
export function operatorRefusal(check: OperatorIdCheck): string | undefined {
  const id = printable(check.taskId, 130);
  if (!check.facts.found) {
    const left = check.window.toMs + check.notFoundGraceMs - check.nowMs;
    if (left > 0) {
      return `task ${id} is not found at the vendor yet (it may lag just after a create); try again in ${Math.ceil(left / 1000)} s`;
    }
    const why = check.facts.notFound ? ` (${printable(check.facts.notFound, 160)})` : '';
    return `task ${id} is unknown at the vendor${why}; check the id in the vendor console`;
  }
  const reasons = judgeOffer(check.taskId, check.facts, check.expect, check.window);
  return reasons.length > 0 ? `task ${id} is refused: ${reasons.join('; ')}` : undefined;
}
