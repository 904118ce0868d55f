/**
 * What the workflow and the claims activity share about a task id a callback offers: the
 * facts the activity gathers (src/activities/claims.ts), what the workflow judges them
 * against (src/workflows/lib/callbacks/offers.ts), and an offer's state as continue-as-new carries
 * it. Plain data: every side imports it, it imports only the stage table's types.
 */
import type { OfferedTaskKind } from './stages';

// Declared once, in the stage table (docs/architecture.md, "How to add a stage").
export type { OfferedTaskKind } from './stages';

/** What a vendor task id looks like (also what an operator may type); anything else is refused unqueried. */
export const TASK_ID_PATTERN = /^[\w.:-]{1,128}$/;

export interface OfferedTaskFacts {
  /** False when the vendor does not know the id (404, or it refused the id itself). */
  found: boolean;
  notFound?: string;
  /** The id the answer names. */
  id?: string;
  model?: string;
  /** Unix seconds. */
  createdAtSec?: number;
  /** Review: how many media the task holds, and the media its result items name. */
  itemCount?: number;
  sourceUrls?: string[];
  /** Workflow ids (other than the excluded ones) whose ReelflowVendorTaskIds holds the id. */
  claimedBy: string[];
}

export interface InspectOfferedTaskInput {
  profile: string;
  kind: OfferedTaskKind;
  taskId: string;
  /** The asking pipeline's own workflow ids: their claims do not count. */
  exclude: string[];
  /**
   * The asking pipeline's own run chain: under its workflow id only runs of this chain are
   * its own. An earlier pipeline that used the same workflow id (`start --workflow-id`,
   * `rerun --id`) claims its tasks like any other pipeline. Absent: every run of `exclude`.
   */
  chain?: OwnChain;
}

export interface OwnChain {
  workflowId: string;
  /** workflowInfo().firstExecutionRunId: the same in every run of the chain. */
  firstRunId: string;
}

/** What this create asked for, to compare with the offered task's own answer. */
export interface OfferExpectation {
  /** Generation: the request's model. */
  model?: string;
  /** Review: the batch's media URLs. */
  urls?: readonly string[];
}

export interface Offer {
  id: string;
  state: 'pending' | 'checking' | 'proven' | 'refused' | 'unchecked';
  /** Why it was refused, or why it could not be checked. */
  why?: string;
}
