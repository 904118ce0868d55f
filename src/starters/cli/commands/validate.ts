/** `reelflow validate <file>`: checks a definition; no server needed. */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { definedStages, pipelineSummary } from '../../client/pipeline-client';
import { loadDefinition, refuseWhatTheWorkerWould } from './definition-arg';

export const validate: CommandFn = async (ctx) => {
  const loaded = await loadDefinition(ctx);
  const { source, definition } = loaded;
  const workerChecks = refuseWhatTheWorkerWould(ctx, loaded);
  const stages = definedStages(definition);
  ctx.emit(
    {
      valid: true,
      file: source,
      name: definition.name ?? null,
      stages,
      summary: pipelineSummary(definition),
      definition,
      workerChecks,
    },
    () => [`${source}: valid`, `  ${pipelineSummary(definition)}`],
  );
  // What only the worker can judge: on stderr, so stdout stays the verdict.
  for (const note of workerChecks) ctx.info(`note: ${note}`);
  return EXIT.ok;
};
