/** Which vendor interface a callback URL's step belongs to, read from the step's name. */
import { PASSING_STATES } from '../vendor-api/assumed-values';

export type CallbackStepKind = 'generation' | 'erase' | 'review' | 'unknown';

export function callbackStepKind(step: string): CallbackStepKind {
  if (step === 'generation' || step.startsWith('generation-')) return 'generation';
  if (step === 'erase' || step.startsWith('erase-')) return 'erase';
  if (step === 'review' || step.startsWith('review-')) return 'review';
  return 'unknown';
}

/** A state the step's task only passes through on its way to the end (running, QUEUED…). */
export function isPassingState(step: string, status: string): boolean {
  const kind = callbackStepKind(step);
  return kind !== 'unknown' && PASSING_STATES[kind].includes(status);
}
