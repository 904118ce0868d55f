/** Which vendor interface a callback URL's step belongs to, read from the step's name. */
import { OFFERED_KINDS, PASSING_STATES, type OfferedTaskKind } from '../contract/stages';

/** A step is named after the kind of task it creates ("erase", "review-b0"): docs/architecture.md, "How to add a stage". */
export type CallbackStepKind = OfferedTaskKind | 'unknown';

export function callbackStepKind(step: string): CallbackStepKind {
  return OFFERED_KINDS.find((kind) => step === kind || step.startsWith(`${kind}-`)) ?? 'unknown';
}

/** A state the step's task only passes through on its way to the end (running, QUEUED…). */
export function isPassingState(step: string, status: string): boolean {
  const kind = callbackStepKind(step);
  return kind !== 'unknown' && PASSING_STATES[kind].includes(status);
}
