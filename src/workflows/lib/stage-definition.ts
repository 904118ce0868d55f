/**
 * What the pipeline's stage loop knows of a stage (docs/architecture.md, "How to add a stage"):
 * whether the definition runs it, its input, its run and what it archives. Each module of
 * src/workflows/stages/ exports one; video-pipeline.ts runs them in the stage table's order.
 */
import type { PipelineDefinition } from '../../definition/definition';
import type { PipelineResult, StageName } from '../../contract/messages';
import type { PipelineRuntime } from './pipeline-runtime';
import type { StageCommon } from './stage-common';

/** What a stage's input is made from. */
export interface StageContext {
  rt: PipelineRuntime;
  def: PipelineDefinition;
  /** The finished stages' outputs so far. */
  result: PipelineResult;
  common: StageCommon;
}

/** A vendor output whose URL expires: archived the moment it exists (docs/architecture.md, "Outputs"). */
export interface ArchivedOutput {
  /** The file's name, without its extension (read from the URL). */
  as: string;
  output: { taskId: string; videoUrl: string };
}

/** Written as methods, so a list of stages of other inputs and outputs is one type (AnyStage). */
export interface StageDefinition<I, O> {
  /** Its name in the stage table; its output is `result[name]`. */
  name: StageName;
  /** The definition runs it. */
  enabled(def: PipelineDefinition): boolean;
  /** Its input, or undefined while an earlier stage's output it needs is missing (it is then not run). */
  input(ctx: StageContext): I | undefined;
  run(rt: PipelineRuntime, input: I): Promise<O>;
  /** What of its output is archived, if anything. */
  archives?(out: O): ArchivedOutput;
}

/** Any stage, as the loop holds them. */
export type AnyStage = StageDefinition<unknown, unknown>;

/** The output of a stage in the result, if it has run (or was reused). */
export function outputOf(result: PipelineResult, name: StageName): unknown {
  return (result as unknown as Partial<Record<StageName, unknown>>)[name];
}

export function setOutput(result: PipelineResult, name: StageName, out: unknown): void {
  (result as unknown as Partial<Record<StageName, unknown>>)[name] = out;
}
