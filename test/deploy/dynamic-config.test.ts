/**
 * One dynamic config for every server reelflow starts: the dev server's flags
 * (tools/devstack/dev-server.ts) and deploy/dynamicconfig.yaml, which docker compose and
 * `npm run cluster` (and so the cluster tests) read. Priority and fairness depend on it
 * (docs/tenants.md#fair-share-of-the-vendor).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEV_DYNAMIC_CONFIG } from '../../tools/devstack/dev-server';

/** The file's `key:\n  - value: v` entries (the only form it uses: no constraints). */
function deployDynamicConfig(): Record<string, unknown> {
  const text = readFileSync(path.join(__dirname, '../../deploy/dynamicconfig.yaml'), 'utf8');
  const entries = [...text.matchAll(/^([\w.]+):\n\s+- value: (.+)$/gm)].map(([, key, value]): [string, unknown] => [
    key,
    JSON.parse(value),
  ]);
  return Object.fromEntries(entries);
}

test('the dev server and deploy/dynamicconfig.yaml set the same keys and values', () => {
  expect(deployDynamicConfig()).toEqual(DEV_DYNAMIC_CONFIG);
});

test('both turn on the matcher that honours priority and fairness keys', () => {
  expect(deployDynamicConfig()).toMatchObject({
    'matching.useNewMatcher': true,
    'matching.enableFairness': true,
    'matching.enableMigration': true,
  });
});
