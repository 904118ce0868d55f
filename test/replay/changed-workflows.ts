/**
 * A deliberately incompatible videoPipeline: it starts the generation child before the
 * review child. Replaying a recorded history with it MUST fail with a determinism
 * violation — proof that the replay test would catch such a change.
 */
import { executeChild } from '@temporalio/workflow';
import type { PipelineInput } from '../../src/workflows/messages';
import { generationStage, reviewStage } from '../../src/workflows';

export { reviewStage, assetsStage, generationStage, eraseStage } from '../../src/workflows';

export async function videoPipeline(input: PipelineInput): Promise<unknown> {
  await executeChild(generationStage, { workflowId: 'reordered', args: [input as never] });
  return executeChild(reviewStage, { workflowId: 'reordered-review', args: [input as never] });
}
