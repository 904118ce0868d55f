/**
 * What `resolveCreate` rejects with when the pipeline refuses an operator's decision: the
 * validator's refusal (malformed decision, nothing waiting) or the handler's TaskIdRefused
 * (the task id fails the proof; the pipeline goes on waiting). Its message is the
 * workflow's own words, so the CLI and library callers show the reason, not an SDK class.
 * A WorkflowUpdateFailedError still, for callers that catch that.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

export class ResolveRefusedError extends WorkflowUpdateFailedError {
  constructor(
    readonly workflowId: string,
    message: string,
    /** The failure type: TaskIdRefused from the handler; the validator's refusals have the error's class name. */
    readonly type: string | undefined,
    cause: Error,
  ) {
    super(message, cause);
  }
}
// The SDK's class defines a read-only `name` on its prototype: this one names itself the same way.
Object.defineProperty(ResolveRefusedError.prototype, 'name', { value: 'ResolveRefusedError', enumerable: true });

/** The refusal as a ResolveRefusedError; any other error as it came. */
export function asResolveRefused(workflowId: string, err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError) || !(err.cause instanceof ApplicationFailure)) return err;
  // Same cause as the SDK's error (the workflow's ApplicationFailure): callers reading `err.cause` still find it.
  return new ResolveRefusedError(workflowId, err.cause.message, err.cause.type ?? undefined, err.cause);
}
