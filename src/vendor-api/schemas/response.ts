/**
 * Building blocks of RESPONSE schemas (what the vendor sends), read tolerantly: the
 * upstream behind the vendor sends `null` for absent fields, and states the spec does
 * not name. Pure: workflows may import.
 */
import { z } from 'zod';

/** A copy of a JSON value without object members whose value is null (array items stay). */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v);
  return out;
}

/**
 * A response schema where `null` anywhere means "absent": every optional field accepts
 * null, and a required one that is null is reported as missing.
 */
export function nullIsAbsent<S extends z.ZodType>(schema: S) {
  return z.preprocess(withoutNulls, schema);
}

/** A task state: any non-empty string. Known states: assumed-values.ts. */
export const StatusSchema = z.string().min(1, 'must be a non-empty state');

/** An error or result code: the vendor sends strings or numbers. */
export const CodeSchema = z.union([z.string(), z.number()]);
