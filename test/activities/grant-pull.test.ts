/**
 * The reader a create uses for its plan grant (src/activities/grant-pull.ts), against the real
 * dev server. The granted and refused readings are end to end in test/tenants/budget.e2e.test.ts;
 * here, a ledger that gives no answer: the read must end, with null, and never hang a create.
 */
import { randomUUID } from 'node:crypto';
import { devServerClient } from '../support/dev-client';
import { GrantReader } from '../../src/activities/grant-pull';
import { ledgerId } from '../../src/contract/ledger';

const dev = devServerClient();

const askOf = (ledger: string) => ({
  ledgerId: ledger,
  chain: { pipelineId: `p-${randomUUID()}`, firstRunId: randomUUID() },
  key: 'plan',
  ask: 1,
});

test('a ledger that never answers (here: none runs under its id): every read on it ends with null after its window', async () => {
  const reader = new GrantReader();
  const ledger = ledgerId(`nobody-${randomUUID()}`, '2026-12');
  const reads = [reader.read(dev.client, askOf(ledger), 400), reader.read(dev.client, askOf(ledger), 900)];
  await expect(Promise.all(reads)).resolves.toEqual([null, null]);
  // The reader let go of the ledger: a later read starts a new loop and ends the same way.
  await expect(reader.read(dev.client, askOf(ledger), 100)).resolves.toBeNull();
});
