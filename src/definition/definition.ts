/**
 * The pipeline definition: what a user writes (JSON) to run review → assets →
 * generation → erase. Validated before anything starts, and again inside the workflow
 * (pure code, workflow-safe). Every error names the field path and what is wrong.
 *
 * One validator: the fields the vendor client checks (generation request, group names,
 * media URLs, review extensions) are built from the client's own schemas and rules, so a
 * definition that passes here also passes the client's checks at start.
 */
import { crossFieldIssues } from './cross-checks';
import { definitionErrorMap, definitionIssues, formatPath, type DefinitionIssue } from './issues';
import { knownKeysAt } from './known-keys';
import { crossIssuesBeside } from './one-pass';
import { PipelineDefinitionShape, type PipelineDefinition, type PipelineDefinitionInput } from './schema';

export { ASSET_REF, REVIEW_REF, durationMs } from './refs';
export { formatPath, type DefinitionIssue } from './issues';
export {
  ReviewStageSchema,
  AssetsStageSchema,
  GenerationStageSchema,
  OptionsSchema,
  type AssetItem,
  type AssetGroupRef,
  type ContentItemDefinition,
  type PipelineDefinition,
  type PipelineDefinitionInput,
} from './schema';

export const PipelineDefinitionSchema = PipelineDefinitionShape.superRefine((def, ctx) => {
  for (const { path, message } of crossFieldIssues(def)) ctx.addIssue({ code: 'custom', path, message });
});

/**
 * Types a definition written in code, with no runtime effect: a misspelt field or a wrong
 * value (`erase: 'yes'`) fails at compile time, and editors complete the fields. The
 * validation that names the field at run time stays in startPipeline and parseDefinition.
 */
export function definePipeline(definition: PipelineDefinitionInput): PipelineDefinitionInput {
  return definition;
}

export class DefinitionError extends Error {
  constructor(readonly issues: DefinitionIssue[]) {
    super(`invalid pipeline definition: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
    this.name = 'DefinitionError';
  }
}

export function parseDefinition(input: unknown): PipelineDefinition {
  const res = PipelineDefinitionSchema.safeParse(input, { error: definitionErrorMap });
  if (res.success) return res.data;
  // The cross-field rules run only when the schema passes: add those that still mean something.
  const cross = crossIssuesBeside(input, res.error.issues);
  throw new DefinitionError([
    ...definitionIssues(res.error, (path) => knownKeysAt(PipelineDefinitionShape, path)),
    ...cross.map((i) => ({ path: formatPath(i.path), message: i.message })),
  ]);
}
