/**
 * A deliberately incompatible videoPipeline: it starts with a timer the recorded pipelines
 * never had. Replaying a recorded history with it MUST fail with a determinism violation —
 * proof that the replay test would catch such a change.
 */
import { sleep } from '@temporalio/workflow';
import type { PipelineInput, PipelineResult } from '../../src/contract/messages';
import { videoPipeline as current } from '../../src/workflows';

export async function videoPipeline(input: PipelineInput): Promise<PipelineResult> {
  await sleep('1 second');
  return current(input);
}
