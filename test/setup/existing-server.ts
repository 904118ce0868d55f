/**
 * REELFLOW_TEST_TEMPORAL_ADDRESS: the tests run against a server that is already up (a
 * real cluster, `npm run cluster` or `npm run test:cluster`) instead of a dev server of
 * their own. The namespace must exist and carry reelflow's search attributes: checked
 * here, so a missing one fails the run at once with the fix, not every test later.
 */
import { REELFLOW_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { connectTemporal } from '../../src/config/temporal-connection';

export async function checkExistingServer(address: string, namespace: string): Promise<void> {
  const connection = await connectTemporal({ address, connectTimeout: 10_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace }).catch((err: unknown) => {
      throw new Error(`REELFLOW_TEST_TEMPORAL_ADDRESS=${address}: namespace '${namespace}' unusable: ${String(err)}`);
    });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.keys(REELFLOW_SEARCH_ATTRIBUTES).filter((name) => !(name in (customAttributes ?? {})));
    if (missing.length) {
      throw new Error(
        `REELFLOW_TEST_TEMPORAL_ADDRESS=${address}: namespace '${namespace}' lacks the search attributes ` +
          `${missing.join(', ')} (register them: reelflow setup)`,
      );
    }
  } finally {
    await connection.close();
  }
}
