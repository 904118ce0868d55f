/**
 * A pipeline's `resume` (the carry of a continue-as-new) given on a raw start: anyone who
 * may start workflows could forge one (a vendor task "already known", an offer to check,
 * finished stages). It is refused before any vendor call. The genuine path, a run that did
 * continue as new, is covered by continue-as-new.e2e.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { PipelineInput, PipelineStatus } from '../../src/contract/messages';
import { rejection, startHarness, type Harness } from '../support/harness';

const forgedStatus = (pipelineId: string): PipelineStatus => ({
  pipelineId,
  state: 'running',
  stage: 'generation',
  stages: {
    review: { state: 'skipped' },
    assets: { state: 'skipped' },
    generation: { state: 'running' },
    erase: { state: 'skipped' },
  },
  // "Known" already: the forger wants this id polled and adopted instead of a create.
  vendorTasks: [{ kind: 'generation', id: 'cgt-forged-1', step: 'generation', attempt: 1, via: 'create' }],
  calls: {},
});

describe('a forged resume on a raw start', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('fails the pipeline at once naming `resume`, with no vendor call', async () => {
    const workflowId = `forged-${randomUUID().slice(0, 8)}`;
    const input: PipelineInput = {
      definition: {
        generation: { model: 'video-model-1', content: [{ type: 'text', text: 'forged' }] },
        options: { archive: false, deadlines: { notFoundGrace: '1s' } },
      },
      resume: {
        runtime: {
          status: forgedStatus(workflowId),
          holds: {},
          // An offer "pending" a check: a run that trusted the carry would query the vendor for it.
          book: {
            attempts: [
              {
                step: 'generation',
                attempt: 1,
                kind: 'generation',
                proof: { profile: 'default', kind: 'generation', endpoint: 'generation.get', expect: {} },
                fromMs: 0,
                toMs: 1,
                offers: [{ id: 'cgt-forged-2', state: 'pending' }],
                dropped: 0,
              },
            ],
            settled: [],
            signals: [],
          },
        },
        result: { pipelineId: workflowId, vendorTasks: [], archived: [], timings: {}, calls: {}, cost: {} },
      },
    };
    const handle = await h.client.workflow.start('videoPipeline', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [input],
    });
    const err = await rejection(handle.result(), WorkflowFailedError);
    expect(err.cause).toBeInstanceOf(ApplicationFailure);
    const cause = err.cause as ApplicationFailure;
    expect(cause.type).toBe('InvalidDefinition');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toBe('resume: set only by a pipeline that continues as new, and this run was started afresh');
    // Nothing of the forged carry reached the vendor: no create, no query of either id.
    expect(h.emulator.inspect().requests).toEqual([]);
    // The status says why, and shows none of the forged tasks.
    const status = await handle.query('status');
    expect(status).toMatchObject({ state: 'failed', vendorTasks: [], error: expect.stringMatching(/^.*resume: /) });
  });
});
