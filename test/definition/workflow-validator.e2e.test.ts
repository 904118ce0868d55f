/**
 * The workflow parses the definition with the same validator as the door (its own bundled
 * copy, ipaddr.js included): a definition that bypassed the client check fails in the
 * workflow, naming the field and the reason, before any vendor call.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { rejection, startHarness, type Harness } from '../support/harness';
import { FailureType } from '../../src/failures';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

test.each([
  [
    { review: { media: ['http://127.0.0.1/a.png'] }, options: { allowPrivateHosts: false } },
    'review.media[0]: host 127.0.0.1 is a loopback address',
  ],
  [{ review: { media: ['https://media.example.com/a'] } }, 'review.media[0]: has no file extension'],
  [
    {
      generation: { model: 'm', content: [{ type: 'text', text: 'x' }] },
      options: { deadlines: { createAttempt: '0s' } },
    },
    'options.deadlines.createAttempt: must be positive',
  ],
])('%j fails as InvalidDefinition: %s', async (definition, message) => {
  const handle = await h.start(definition as never);
  const err = await rejection(handle.result(), WorkflowFailedError);
  expect(err.cause).toMatchObject({ type: FailureType.InvalidDefinition });
  expect(err.cause?.message).toContain(message);
  expect(h.emulator.inspect().counters.requests).toBe(0);
});
