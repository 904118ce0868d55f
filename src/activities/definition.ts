/**
 * validateDefinition: the workflow's own check of its input, with the same validator as
 * `reelflow validate` and `start` (a pipeline started raw, e.g. by `temporal workflow
 * start`, is refused here before any vendor call). It runs as a local activity, so zod
 * never loads in workflow code; it is pure, so running it again is harmless.
 */
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../failures';
import { DefinitionError, parseDefinition, type PipelineDefinition } from '../definition/definition';

export function createDefinitionActivities() {
  return {
    validateDefinition: async (input: { definition: unknown }): Promise<PipelineDefinition> => {
      try {
        return parseDefinition(input.definition);
      } catch (err) {
        if (err instanceof DefinitionError)
          throw ApplicationFailure.nonRetryable(err.message, FailureType.InvalidDefinition, err.issues);
        throw err;
      }
    },
  };
}
