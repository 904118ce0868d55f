/**
 * A callback that names a state its task passes through (generation `running`, review
 * `processing`…) tells a pipeline waiting for the end nothing: the receiver asks the
 * workflow first, hears `passing`, and sends no signal (no event, no workflow task, no
 * vendor query to confirm it). Terminal callbacks still cut the poll short.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { PASSING_STATES } from '../../src/contract/stages';
import type { VendorCallbackSignal } from '../../src/contract/messages';
import { startHarness, type Harness } from '../support/harness';

const EventType = temporal.api.enums.v1.EventType;
const passing = new Set(Object.values(PASSING_STATES).flat());

describe('callbacks naming a passing state', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      callbacks: true,
      emulator: { profile: { generationQueuedMs: 300, generationRunningMs: 1_500, eraseInProgressMs: 800 } },
    });
  });
  afterAll(async () => h?.close());

  test('are answered without a signal; terminal ones are signalled and the pipeline completes', async () => {
    const { handle, result } = await h.run({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'passing states' }] },
      erase: true,
      options: { archive: false, callbacks: true },
    });
    expect(result.erase?.videoUrl).toBeTruthy();

    const deliveries = h.emulator.inspect().callbacks.filter((c) => c.outcome === 'delivered');
    const passingSent = deliveries.filter((c) => passing.has(c.state));
    expect(passingSent.map((c) => c.state)).toContain('running'); // the vendor did send them

    const history = await h.client.workflow.getHandle(handle.workflowId).fetchHistory();
    const signals = (history.events ?? [])
      .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
      .map((e) => e.workflowExecutionSignaledEventAttributes!)
      .filter((a) => a.signalName === 'vendorCallback')
      .map((a) => defaultPayloadConverter.fromPayload<VendorCallbackSignal>(a.input!.payloads![0]));
    expect(signals.filter((s) => s.status !== undefined && passing.has(s.status))).toEqual([]);
    // Polls wait 6 s while callbacks are expected: the terminal callbacks came first and were signalled.
    expect(signals.map((s) => s.status)).toEqual(expect.arrayContaining(['succeeded', 'SUCCESS']));
  });
});
