/**
 * A pipeline that does not complete reaches the library's caller as a typed
 * PipelineFailedError: the failure type, the stage, the vendor's code and the vendor tasks,
 * read without walking the SDK's failure chain (kept as `cause`).
 */
import { WorkflowFailedError } from '@temporalio/client';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { FAIL_GENERATION_MARKER } from '../../src/emulator/generation';
import { FailureType } from '../../src/failures';
import { PipelineFailedError } from '../../src/starters/client/pipeline-failed';
import { failureChain, pipelineResult, runPipeline } from '../../src/starters/client/pipeline-client';
import { rejection, startHarness, type Harness } from '../support/harness';

const quick = { generationQueuedMs: 200, generationRunningMs: 500, eraseInProgressMs: 500 };
const generation = (text: string): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text }] },
  options: { archive: false },
});

describe('PipelineFailedError', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { profile: quick } });
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.emulator.reset());

  test('pipelineResult(): erase create answered 502 → type, stage, vendor code and the generation task', async () => {
    h.emulator.setFaults({ 'erase.create': { upstream502: { next: 1 } } });
    const handle = await h.start({ ...generation('typed failure'), erase: true });
    const err = await rejection(pipelineResult(h.client, handle.workflowId), PipelineFailedError);
    const [task] = h.emulator.inspect().generationTasks;
    expect(err).toMatchObject({
      status: 'failed',
      type: FailureType.UpstreamFailedError,
      stage: 'erase',
      vendorCode: '502',
      workflowId: handle.workflowId,
    });
    expect(err.vendorTasks).toEqual([expect.objectContaining({ kind: 'generation', id: task.id, state: 'succeeded' })]);
    expect(err.message).toMatch(/failed in stage erase: erase create rejected/);
    expect(err.cause).toBeInstanceOf(WorkflowFailedError);
    // The CLI's lines are those of the SDK error it wraps.
    expect(failureChain(err)).toEqual(failureChain(err.cause));
  });

  test('runPipeline(): a generation task that ends failed → GenerationFailed in stage generation', async () => {
    const err = await rejection(
      runPipeline(h.client, generation(`please ${FAIL_GENERATION_MARKER}`), { taskQueue: h.taskQueue }),
      PipelineFailedError,
    );
    const [task] = h.emulator.inspect().generationTasks;
    expect(err).toMatchObject({ status: 'failed', type: FailureType.GenerationFailed, stage: 'generation' });
    expect(err.vendorCode).toBeUndefined(); // the emulator's default dialect gives a reason, no code
    expect(err.vendorTasks.map((t) => [t.kind, t.id, t.state])).toEqual([['generation', task.id, 'failed']]);
  });

  test('a definition the workflow refuses: InvalidDefinition, before any stage and any vendor task', async () => {
    const handle = await h.start({ ...generation('x'), erase: 'yes' } as unknown as PipelineDefinitionInput);
    const err = await rejection(pipelineResult(h.client, handle.workflowId), PipelineFailedError);
    expect(err).toMatchObject({ status: 'failed', type: FailureType.InvalidDefinition, vendorTasks: [] });
    expect(err.stage).toBeUndefined();
    expect(err.message).toMatch(/erase/);
  });
});
