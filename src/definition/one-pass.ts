/**
 * Validation in one pass: when the schema fails, the cross-field rules still run on the
 * sections that passed, so a user sees every error of the file at once. A rule is kept
 * only when every section it reads passed (a section that failed is left out, and a rule
 * reading it would then report a false "no such stage"), so nothing said is wrong.
 */
import type { z } from 'zod';
import { crossFieldIssues, type CrossFieldIssue } from './cross-checks';
import { PipelineDefinitionShape } from './schema';

/** The sections each rule reads, by the first key of the path it reports ('' = the root). */
const READS: Readonly<Record<string, readonly string[]>> = {
  '': ['review', 'assets', 'generation'],
  erase: ['generation', 'erase'],
  review: ['review', 'options'],
  assets: ['review', 'assets', 'options'],
  generation: ['review', 'assets', 'generation', 'options'],
  options: ['options'],
};

/** The cross-field issues that still mean something next to the schema's own issues. */
export function crossIssuesBeside(input: unknown, schemaIssues: readonly z.core.$ZodIssue[]): CrossFieldIssue[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return [];
  const partial: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  const failed = new Set<string>();
  for (const issue of schemaIssues) {
    const key = issue.path[0];
    if (issue.code === 'unrecognized_keys' && key === undefined) for (const k of issue.keys) delete partial[k];
    else if (key === undefined)
      return []; // the whole definition is wrong: no rule applies
    else failed.add(String(key));
  }
  for (const key of failed) delete partial[key];
  const rest = PipelineDefinitionShape.safeParse(partial);
  if (!rest.success) return [];
  return crossFieldIssues(rest.data).filter((i) =>
    (READS[String(i.path[0] ?? '')] ?? Object.keys(READS)).every((s) => !failed.has(s)),
  );
}
