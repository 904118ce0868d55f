/**
 * An error's words for an operator: the Temporal SDK's class names
 * (`WorkflowNotFoundError: …`, `WorkflowUpdateFailedError: …`) say nothing to someone
 * running `reelflow`, so they are dropped; names of reelflow's own errors (and the
 * failure types of docs/failures.md) stay, as they name what went wrong.
 */
import * as client from '@temporalio/client';
import * as common from '@temporalio/common';

/** Every error class the SDK exports, by name (the SDK sets `name` to the class name). */
const SDK_ERROR_NAMES: ReadonlySet<string> = new Set(
  [...Object.values(client as Record<string, unknown>), ...Object.values(common as Record<string, unknown>)]
    .filter((v): v is { name: string; prototype: unknown } => typeof v === 'function')
    .filter((v) => v.prototype instanceof Error)
    .map((v) => v.name),
);

/** "<name>: <message>" for our own errors, the bare message for the SDK's (and plain Errors). */
export function plainMessage(err: Error): string {
  if (!err.name || err.name === 'Error' || SDK_ERROR_NAMES.has(err.name)) return err.message || 'unknown error';
  return `${err.name}: ${err.message}`;
}
