/** Test workflows for the callback receiver. */
import { condition, defineQuery, setHandler } from '@temporalio/workflow';
import {
  callbackVerdictQuery,
  vendorCallbackSignal,
  type CallbackVerdict,
  type VendorCallbackSignal,
} from '../../src/contract/messages';

export const receivedCountQuery = defineQuery<number>('receivedCount');
export const verdictAsksQuery = defineQuery<number>('verdictAsks');

/** Waits for one vendorCallback signal and returns it. */
export async function awaitCallbackWorkflow(): Promise<VendorCallbackSignal> {
  const received: VendorCallbackSignal[] = [];
  setHandler(vendorCallbackSignal, (s) => {
    received.push(s);
  });
  setHandler(receivedCountQuery, () => received.length);
  await condition(() => received.length > 0);
  return received[0];
}

/** Collects every vendorCallback signal until terminated. */
export async function countCallbacksWorkflow(): Promise<never> {
  const received: VendorCallbackSignal[] = [];
  setHandler(vendorCallbackSignal, (s) => {
    received.push(s);
  });
  setHandler(receivedCountQuery, () => received.length);
  await condition(() => false);
  throw new Error('unreachable');
}

/**
 * Answers the receiver's callbackVerdict by the status it names: "dup" duplicate, "full"
 * limit, "queued" or "running" passing, else new; and counts the asks.
 */
export async function verdictCallbacksWorkflow(): Promise<never> {
  const received: VendorCallbackSignal[] = [];
  let asks = 0;
  setHandler(vendorCallbackSignal, (s) => {
    received.push(s);
  });
  setHandler(receivedCountQuery, () => received.length);
  setHandler(verdictAsksQuery, () => asks);
  const passing = ['queued', 'running'];
  setHandler(callbackVerdictQuery, (s): CallbackVerdict => {
    asks++;
    return s.status === 'dup'
      ? 'duplicate'
      : s.status === 'full'
        ? 'limit'
        : passing.includes(s.status ?? '')
          ? 'passing'
          : 'new';
  });
  await condition(() => false);
  throw new Error('unreachable');
}
