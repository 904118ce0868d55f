/**
 * The field names a definition's schema takes at a path, for the "did you mean" of an
 * unknown field (docs/definitions.md). zod's unrecognized_keys issue names the stray keys
 * only; the candidates come from walking the schema itself, so they never drift from it.
 */
import type { z } from 'zod';

/** The parts of zod's internal definition the walk reads. */
interface Def {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  element?: z.core.$ZodType;
  options?: readonly z.core.$ZodType[];
}

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def;

/** The object schemas a schema stands for, through wrappers, pipes and unions. */
function objectsOf(schema: z.core.$ZodType): Def[] {
  const def = defOf(schema);
  if (def.type === 'object') return [def];
  if (def.innerType) return objectsOf(def.innerType);
  if (def.type === 'pipe') return [def.in, def.out].flatMap((s) => (s ? objectsOf(s) : []));
  if (def.type === 'union') return (def.options ?? []).flatMap(objectsOf);
  return [];
}

/** The schemas at one step of a path: an object's field, or an array's element. */
function step(schema: z.core.$ZodType, key: PropertyKey): z.core.$ZodType[] {
  const def = defOf(schema);
  if (def.innerType) return step(def.innerType, key);
  if (def.type === 'pipe') return [def.in, def.out].flatMap((s) => (s ? step(s, key) : []));
  if (def.type === 'union') return (def.options ?? []).flatMap((s) => step(s, key));
  if (def.type === 'array' && typeof key === 'number' && def.element) return [def.element];
  const field = def.type === 'object' ? def.shape?.[String(key)] : undefined;
  return field ? [field] : [];
}

/** Every field name the schema takes at `path` (several objects there, e.g. a union: all of theirs). */
export function knownKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const here = path.reduce<z.core.$ZodType[]>((schemas, key) => schemas.flatMap((s) => step(s, key)), [schema]);
  return [...new Set(here.flatMap(objectsOf).flatMap((def) => Object.keys(def.shape ?? {})))];
}
