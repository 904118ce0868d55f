/**
 * How a pipeline behaves where releases differ: decided ONCE, in its first workflow task
 * before any command, and frozen on the runtime (`rt.behaviour`). It is the one place a
 * release's `patched` calls go (docs/architecture.md, "Versioning"): a marker recorded
 * there is met at the same place by every replay, whatever the timing of later tasks (a
 * local activity's result may reach a replay a workflow task earlier than the live run saw
 * it; a signal may be handled in this very task). Code elsewhere reads the field, never asks.
 */
import { ApplicationFailure, patched } from '@temporalio/workflow';
import type { PipelineInput } from '../../contract/messages';
import { FailureType } from '../../failures';

/**
 * Empty in 0.2.0, the first release. Each later change to a pipeline's commands adds a field
 * here for its `patched` call: a run 0.2.0 started keeps 0.2.0's commands on replay.
 */
export interface Behaviour {
  /**
   * `spend-in-check` (after 0.2.0; docs/tenants.md, "Budgets"): the definition check's local
   * activity also asks the ledger for the pipeline's plan, and the pipeline ends without a
   * settle activity (its ledger finds it closed, by visibility). Two activations fewer.
   */
  readonly spendInCheck: boolean;
}

/** Call in the first workflow task, before any command. */
export function decideBehaviour(_input: PipelineInput): Behaviour {
  return Object.freeze({ spendInCheck: patched('spend-in-check') });
}

/**
 * `behaviour` (a behaviour epoch of unreleased commits, never in a release) is refused by
 * name: a start that still sends it expects code this release does not have.
 */
export function retiredInputField(input: PipelineInput): ApplicationFailure | undefined {
  const raw: unknown = input; // a raw start's input may be anything
  if (typeof raw !== 'object' || raw === null || !('behaviour' in raw)) return undefined;
  return ApplicationFailure.nonRetryable(
    'behaviour: no longer an input field (it was never in a release: reelflow 0.2.0 decides every behaviour itself); start the pipeline without it',
    FailureType.InvalidDefinition,
  );
}
