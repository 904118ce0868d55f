/**
 * The definition's JSON Schema, generated from the zod schema (the one validator): editors
 * validate definition files with it, and teams on other languages read the contract from it.
 * The committed copy (schema/pipeline-definition.schema.json, `npm run schema`) is checked
 * against this by a test, so it cannot drift. It describes what a user writes (zod's input
 * side: defaults are optional) and the per-field rules; the cross-field rules (a `ref:` that
 * names an earlier stage, url or fromReview, …) stay with parseDefinition, which names the field.
 */
import { z } from 'zod';
import { PipelineDefinitionSchema } from './definition';

/** Where the committed schema lives, from the repository (and package) root. */
export const DEFINITION_SCHEMA_FILE = 'schema/pipeline-definition.schema.json';

/** The `$schema` an example in the repository (examples/) names: its path relative to that file. */
export const EXAMPLES_SCHEMA_REF = `../${DEFINITION_SCHEMA_FILE}`;

export function definitionJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(PipelineDefinitionSchema, { io: 'input' });
  return {
    ...generated,
    title: 'reelflow pipeline definition',
    description:
      'A reelflow pipeline: review → assets → generation → erase, with options. Media type names (assetType, type) are accepted in any case. Generated from the zod schema: see docs/library.md.',
  };
}

/** The file's text: 2-space JSON and a final newline (what prettier leaves as is). */
export function definitionJsonSchemaText(): string {
  return `${JSON.stringify(definitionJsonSchema(), null, 2)}\n`;
}
