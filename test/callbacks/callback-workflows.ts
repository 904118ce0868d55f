/** Test workflow for the callback receiver: waits for one vendorCallback signal and returns it. */
import { condition, defineQuery, setHandler } from '@temporalio/workflow';
import { vendorCallbackSignal, type VendorCallbackSignal } from '../../src/workflows/messages';

export const receivedCountQuery = defineQuery<number>('receivedCount');

export async function awaitCallbackWorkflow(): Promise<VendorCallbackSignal> {
  const received: VendorCallbackSignal[] = [];
  setHandler(vendorCallbackSignal, (s) => {
    received.push(s);
  });
  setHandler(receivedCountQuery, () => received.length);
  await condition(() => received.length > 0);
  return received[0]!;
}
