/**
 * A client of the tests' Temporal dev server (its address from test/setup/global-setup.ts),
 * opened before the tests of the file or describe block that calls this, closed after them.
 */
import { Client, type Connection } from '@temporalio/client';
import { connectTemporal } from '../../src/config/temporal-connection';

export function devServerClient(): { readonly client: Client } {
  const held: { connection?: Connection; client?: Client } = {};
  beforeAll(async () => {
    held.connection = await connectTemporal({ address: process.env.TEMPORAL_ADDRESS! });
    held.client = new Client({ connection: held.connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  });
  afterAll(async () => held.connection?.close());
  return {
    get client() {
      return held.client!;
    },
  };
}
