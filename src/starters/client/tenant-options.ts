/**
 * Tenant and priority given at start (the library's start options, `--tenant` / `--priority`
 * of the CLI): they replace the definition's `options.tenant` / `options.priority`, in the
 * definition the workflow receives, so the worker's check sees them like any other
 * (docs/tenants.md). Checked with the definition's own schema.
 */
import { z } from 'zod';
import { PRIORITY_LEVELS, TenantIdSchema, type PriorityLevel } from '../../definition/schema';
import type { PipelineDefinitionInput } from '../../definition/definition';

export interface TenantStartOptions {
  /** Who the pipeline works for; replaces the definition's options.tenant. */
  tenant?: string;
  /** interactive, normal or batch; replaces the definition's options.priority. */
  priority?: PriorityLevel;
}

const PrioritySchema = z.enum(PRIORITY_LEVELS);

/** A RangeError naming the option ("tenant: …", "priority: …") for a value the definition would refuse. */
export function checkTenantOptions(opts: TenantStartOptions): void {
  if (opts.tenant !== undefined) {
    const r = TenantIdSchema.safeParse(opts.tenant);
    if (!r.success) throw new RangeError(`tenant: ${r.error.issues[0]?.message ?? 'invalid'}`);
  }
  if (opts.priority !== undefined && !PrioritySchema.safeParse(opts.priority).success) {
    throw new RangeError(`priority: one of ${PRIORITY_LEVELS.join(', ')} (got ${JSON.stringify(opts.priority)})`);
  }
}

export function hasTenantOptions(opts: TenantStartOptions): boolean {
  return opts.tenant !== undefined || opts.priority !== undefined;
}

/** The definition with the start's tenant and priority in its options (checked first). */
export function withTenantOptions(
  definition: PipelineDefinitionInput,
  opts: TenantStartOptions,
): PipelineDefinitionInput {
  checkTenantOptions(opts);
  if (!hasTenantOptions(opts)) return definition;
  const given = (definition as { options?: unknown }).options;
  // A malformed options is left for validation to name.
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) return definition;
  return {
    ...definition,
    options: {
      ...(given as PipelineDefinitionInput['options']),
      ...(opts.tenant !== undefined ? { tenant: opts.tenant } : {}),
      ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    },
  };
}
