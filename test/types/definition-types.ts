/**
 * Compile-time checks of the library's types (no runtime test: `npx tsc -p tsconfig.json`
 * compiles this file, and every `@ts-expect-error` below fails the build when the error it
 * expects disappears, e.g. if a library call took `unknown` again).
 */
import type { Client } from '@temporalio/client';
import {
  createPipelineSchedule,
  definePipeline,
  loadDefinitionFile,
  PipelineFailedError,
  runPipeline,
  startPipeline,
  type FailureType,
  type PipelineDefinitionInput,
  type StageName,
} from '../../src';

declare const client: Client;

// definePipeline: a definition written in code is checked field by field.
export const good = definePipeline({
  name: 'typed',
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'a boat' }], ratio: '16:9' },
  erase: true,
  options: { callbacks: true, deadlines: { vendorTask: '30m' } },
});

// @ts-expect-error erase is a boolean
definePipeline({ erase: 'yes' });
// @ts-expect-error a misspelt stage is no field of the definition
definePipeline({ generaton: { model: 'm', content: [{ type: 'text', text: 't' }] } });
// @ts-expect-error an unknown content type
definePipeline({ generation: { model: 'm', content: [{ type: 'txt', text: 't' }] } });
// @ts-expect-error options.ambiguousCreate takes 'resubmit' or 'ask'
definePipeline({ erase: true, options: { ambiguousCreate: { erase: 'retry' } } });

export async function libraryCalls(raw: unknown, parsed: PipelineDefinitionInput): Promise<void> {
  await startPipeline(client, good);
  await runPipeline(client, parsed);
  // A loaded definition goes as it is (parsed once, when it was loaded).
  await startPipeline(client, await loadDefinitionFile('pipeline.json'));
  await createPipelineSchedule(client, good, { scheduleId: 's', every: '1h' });
  // @ts-expect-error startPipeline takes a PipelineDefinitionInput, not anything
  await startPipeline(client, { erase: 'yes' });
  // @ts-expect-error runPipeline too
  await runPipeline(client, { erase: 'yes' });
  // @ts-expect-error and createPipelineSchedule
  await createPipelineSchedule(client, { erase: 'yes' }, { scheduleId: 's', every: '1h' });
  // @ts-expect-error raw, unchecked JSON goes through validateDefinitionValue (or a cast) first
  await startPipeline(client, raw);
}

// PipelineFailedError: typed fields, no chain walking.
export function readFailure(err: unknown): string | undefined {
  if (!(err instanceof PipelineFailedError)) return undefined;
  const type: FailureType | undefined = err.type;
  const stage: StageName | 'archive' | undefined = err.stage;
  const code: string | undefined = err.vendorCode;
  const tasks: string[] = err.vendorTasks.map((t) => `${t.kind} ${t.id}`);
  // @ts-expect-error type is the union of reelflow's failure types, not any string
  const notAType: typeof err.type = 'SomethingElse';
  return [type, stage, code, ...tasks, notAType, err.message].join(' ');
}
