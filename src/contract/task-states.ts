/**
 * Which vendor task states are final, for the workflow (it stops polling, a rerun adopts no
 * ended task) and for `rerun` on the client. Pure: the states are the vendor's, from the
 * zod-free assumed values.
 */
import {
  ASSET_TERMINAL_STATES,
  ERASE_TERMINAL_STATES,
  GENERATION_TERMINAL_STATES,
  REVIEW_TERMINAL_STATES,
} from '../vendor-api/assumed-values';

const TERMINAL_STATES: readonly string[] = [
  ...GENERATION_TERMINAL_STATES,
  ...ERASE_TERMINAL_STATES,
  ...REVIEW_TERMINAL_STATES,
  ...ASSET_TERMINAL_STATES,
];

/** Whether a vendor task in this state has ended (so it no longer runs, nor costs). */
export function isTerminalState(state: string | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.includes(state);
}
