/** `reelflow validate <file>`: checks a definition; no server needed. */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { definedStages, pipelineSummary } from '../../client/pipeline-client';
import { loadDefinition } from './definition-arg';

export const validate: CommandFn = async (ctx) => {
  const { source, definition } = await loadDefinition(ctx);
  const stages = definedStages(definition);
  ctx.emit(
    {
      valid: true,
      file: source,
      name: definition.name ?? null,
      stages,
      summary: pipelineSummary(definition),
      definition,
    },
    () => [`${source}: valid`, `  ${pipelineSummary(definition)}`],
  );
  return EXIT.ok;
};
