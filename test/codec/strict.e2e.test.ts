/**
 * The codec's strict mode (REELFLOW_CODEC_STRICT=1, docs/encryption.md, "Encrypted payloads"), on
 * the real dev server with the emulator over HTTP: a worker with the codec on and strict; one
 * client with the codec (encrypts), one without (plaintext: what a namespace user without the keys,
 * or a misconfigured client, sends).
 *
 * Before: a plaintext start ran the pipeline and paid the vendor, a plaintext callback signal
 * was taken as an offer, a plaintext resolveCreate was accepted.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { codecDataConverter, codecDataConverterOf, workerCodecFromEnv } from '../../src/codec';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { FailureType } from '../../src/failures';
import { resolveCreateUpdate, vendorCallbackSignal } from '../../src/contract/messages';
import { videoPipeline } from '../../src/workflows';
import { rejection, startHarness, testBundle, waitForStatus, type Harness } from '../support/harness';
import { until } from '../support/poll';

const KEYS = { REELFLOW_CODEC_KEYS: `kid1:${randomBytes(32).toString('base64')}` };

const generationOnly = (): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'strict codec test' }] },
  options: {
    archive: false,
    callbacks: true,
    ambiguousCreate: { generation: 'ask' },
    deadlines: { callbackGrace: '2s' },
  },
});

const WORKER_CONVERTER = codecDataConverterOf(workerCodecFromEnv({ ...KEYS, REELFLOW_CODEC_STRICT: '1' })!);

let h: Harness;
let plain: Client;

/** The run's history replays on a strict worker: the judgments come from history, not timing. */
async function expectStrictReplay(workflowId: string): Promise<void> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const workflowBundle = await testBundle({ dataConverter: WORKER_CONVERTER });
  await Worker.runReplayHistory({ workflowBundle, dataConverter: WORKER_CONVERTER }, history, workflowId);
}

beforeAll(async () => {
  h = await startHarness({
    callbacks: true,
    dataConverter: codecDataConverter(KEYS),
    workerDataConverter: WORKER_CONVERTER,
    codecStrict: true,
  });
  plain = new Client({ connection: h.connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
});

afterAll(() => h?.close());

test('a plaintext start fails at once with PlaintextPayloadRefused, before any vendor call', async () => {
  const before = h.emulator.inspect().requests.length;
  const workflowId = `strict-plain-${randomUUID().slice(0, 8)}`;
  const handle = await plain.workflow.start(videoPipeline, {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ definition: generationOnly() }],
  });
  // The client without the codec cannot read the failure (its message is encrypted)...
  expect((await rejection(handle.result(), Error)).message).toContain('binary/encrypted');
  // ...a client with it can.
  const err = await rejection(h.client.workflow.getHandle(workflowId).result(), WorkflowFailedError);
  const cause = err.cause as ApplicationFailure;
  expect(cause.type).toBe(FailureType.PlaintextPayloadRefused);
  expect(cause.nonRetryable).toBe(true);
  expect(cause.message).toContain('REELFLOW_CODEC_STRICT=1');
  expect(h.emulator.inspect().requests.length).toBe(before);
  await expectStrictReplay(workflowId);
});

test('a plaintext signal is dropped and a plaintext Update refused; the encrypted client ends the wait', async () => {
  h.emulator.setFaults({
    'generation.create': { error500AfterCreate: { next: 1 } },
    'generation.callback': { callbackDrop: { probability: 1 } },
  });
  const handle = await h.start(generationOnly());
  const ours = (u?: string) => Boolean(u?.includes(`/${encodeURIComponent(handle.workflowId)}/`));
  const genuine = await until(
    'the ambiguous create made its task',
    () => h.emulator.inspect().generationTasks.find((t) => ours(t.callbackUrl))?.id,
  );
  const waiting = await waitForStatus(handle, (s) => s.state === 'waiting-operator');
  const run = (await handle.describe()).runId;
  const plainHandle = plain.workflow.getHandle(handle.workflowId);

  // The genuine task id, offered in plaintext: a strict pipeline ignores it.
  await plainHandle.signal(vendorCallbackSignal, {
    step: 'generation',
    attempt: 1,
    taskId: genuine,
    status: 'queued',
    run,
  });
  const update = plainHandle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: genuine } }] });
  // The validator's refusal is an encrypted failure that the codec-less client cannot read.
  expect((await rejection(update, Error)).message).toContain('binary/encrypted');
  const events = (await handle.fetchHistory()).events ?? [];
  expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);
  const signaled = events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'vendorCallback');
  expect(signaled).toHaveLength(1);
  const after = await waitForStatus(handle, () => true);
  expect(after.state).toBe('waiting-operator');
  expect(after.waiting).toEqual(waiting.waiting);
  expect(after.vendorTasks).toEqual(waiting.vendorTasks);
  const gets = h.emulator.inspect().requests.filter((r) => r.endpoint === 'generation.get' && r.resourceId === genuine);
  expect(gets).toEqual([]);

  await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: genuine } }] });
  const result = await handle.result();
  expect(result.generation?.taskId).toBe(genuine);
  expect(result.calls['generation.create']).toBe(1);
  await expectStrictReplay(handle.workflowId);
});
