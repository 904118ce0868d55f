/**
 * The test workflow entry that runs the product's stages and then the thumbnail stage, with
 * the product's pipeline code (docs/architecture.md, "How to add a stage"). Workflow code.
 */
import type { PipelineInput, PipelineResult } from '../../../src/contract/messages';
import { PIPELINE_STAGES, pipelineOf } from '../../../src/workflows/video-pipeline';
import { THUMBNAIL } from './thumbnail-stage';

export async function thumbnailPipeline(input: PipelineInput): Promise<PipelineResult> {
  return await pipelineOf(input, [...PIPELINE_STAGES, THUMBNAIL]);
}
