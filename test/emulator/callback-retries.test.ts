/**
 * The emulator's callback retries (docs/emulator.md): off by default, as the spec
 * shows no retry policy; with `callbackRetries`, a callback that got no answer, 408, 429 or 5xx
 * is sent again after a doubling pause, and a definitive refusal (4xx) is not.
 */
import type { RunningEmulator } from '../../src/emulator';
import { FROZEN_CLOCK_TIMINGS } from '../support/emulator';
import { startServer, type Handler } from '../support/http-server';
import { SOON, until } from '../support/poll';
import { api, prompt, start } from './helpers';

/** Answers the first `failures` requests with `status`, then 200. */
const failingFirst =
  (failures: number, status: number): Handler =>
  (_req, res) =>
    res.writeHead(failures-- > 0 ? status : 200).end();

let emu: RunningEmulator | undefined;
afterEach(() => emu?.close());

async function firstCallback(retries: number, handler: Handler) {
  emu = await start({ profile: { ...FROZEN_CLOCK_TIMINGS, callbackRetries: retries, callbackRetryBaseMs: 20 } });
  const rx = await startServer(handler);
  try {
    await api(emu).createGeneration(prompt('retry me', { callback_url: `${rx.url}/cb` }));
    const settled = () => emu!.inspect().callbacks.find((d) => d.outcome !== 'pending');
    const delivery = await until('the callback settled', settled, SOON);
    return { delivery, received: rx.requests.length };
  } finally {
    await rx.close();
  }
}

test('by default a callback is sent once, whatever the answer', async () => {
  const { delivery, received } = await firstCallback(0, failingFirst(1, 503));
  expect(delivery).toMatchObject({ outcome: 'failed', httpStatus: 503, attempts: 1 });
  expect(received).toBe(1);
});

test.each([503, 429, 408, 500])('with retries, an answer %i is retried until it is delivered', async (status) => {
  const { delivery, received } = await firstCallback(3, failingFirst(2, status));
  expect(delivery).toMatchObject({ outcome: 'delivered', httpStatus: 200, attempts: 3 });
  expect(received).toBe(3);
});

test('with retries, a definitive refusal (410, 413) is not retried, and retries stop at their number', async () => {
  expect((await firstCallback(3, failingFirst(5, 410))).delivery).toMatchObject({ outcome: 'failed', attempts: 1 });
  await emu?.close();
  expect((await firstCallback(3, failingFirst(5, 413))).delivery).toMatchObject({ outcome: 'failed', attempts: 1 });
  await emu?.close();
  const spent = await firstCallback(2, failingFirst(5, 503));
  expect(spent.delivery).toMatchObject({ outcome: 'failed', httpStatus: 503, attempts: 3 });
  expect(spent.received).toBe(3);
});
