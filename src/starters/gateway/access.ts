/**
 * Who may see which pipeline: a tenant token sees only pipelines whose ReelflowTenant is its
 * tenant; anything else (another tenant's, one without a tenant, not a pipeline at all, or
 * none) answers the same 404, so an id's existence never leaks across tenants.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { TENANT } from '../../contract/search-attributes';
import { PIPELINE_WORKFLOW_TYPE } from '../client/pipeline-client';
import type { Caller } from './config';
import { notFound } from './problem';

/** The tenant a caller acts for: its own, or (admin) the one asked, else all. */
export function tenantScope(caller: Caller, asked?: string): string | undefined {
  return caller.admin ? asked : caller.tenant;
}

/** True when `caller` may see the described workflow. */
export function maySee(
  caller: Caller,
  d: Pick<WorkflowExecutionDescription, 'type' | 'typedSearchAttributes'>,
): boolean {
  if (d.type !== PIPELINE_WORKFLOW_TYPE) return false;
  return caller.admin || d.typedSearchAttributes.get(TENANT) === caller.tenant;
}

/** The pipeline's description, when the caller may see it; else the 404 problem. */
export async function ownedPipeline(client: Client, caller: Caller, id: string): Promise<WorkflowExecutionDescription> {
  let d: WorkflowExecutionDescription;
  try {
    d = await client.workflow.getHandle(id).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw notFound();
    throw err;
  }
  if (!maySee(caller, d)) throw notFound();
  return d;
}
