/**
 * Workflow code may import the vendor's schemas and pure helpers, never undici or
 * node:* (the workflow bundler refuses them). This walks the imports of those modules.
 */
import path from 'node:path';
import { reachableFrom } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '../../src/vendor-api');
const PURE_ENTRIES = [
  'errors.ts',
  'batching.ts',
  'retry-after.ts',
  'validate.ts',
  'documented-values.ts',
  'assumed-values.ts',
  'assumed-shapes.ts',
  'schemas/index.ts',
];

it.each(PURE_ENTRIES)('%s reaches only zod and pure vendor modules', (entry) => {
  const reached = [...reachableFrom(path.join(ROOT, entry))];
  const packages = reached.filter((r) => r.startsWith('pkg:'));
  expect(packages.filter((p) => p !== 'pkg:zod')).toEqual([]);
  const files = reached.filter((r) => !r.startsWith('pkg:')).map((f) => path.relative(ROOT, f));
  expect(files).not.toContain('http.ts');
  expect(files).not.toContain('client.ts');
});
