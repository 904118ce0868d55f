/**
 * Workflow code may import the vendor's schemas and pure helpers, never undici or
 * node:* (the workflow bundler refuses them). This walks the imports of those modules.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../src/vendor-api');
const PURE_ENTRIES = ['errors.ts', 'batching.ts', 'retry-after.ts', 'validate.ts', 'assumptions.ts', 'schemas/index.ts'];

function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/^\s*(?:import|export)[^'";]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
}

function walk(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const spec of importsOf(file)) {
    if (spec.startsWith('.')) walk(`${path.resolve(path.dirname(file), spec)}.ts`, seen);
    else seen.add(`pkg:${spec}`);
  }
  return seen;
}

it.each(PURE_ENTRIES)('%s reaches only zod and pure vendor modules', (entry) => {
  const reached = [...walk(path.join(ROOT, entry))];
  const packages = reached.filter((r) => r.startsWith('pkg:'));
  expect(packages.filter((p) => p !== 'pkg:zod')).toEqual([]);
  const files = reached.filter((r) => !r.startsWith('pkg:')).map((f) => path.relative(ROOT, f));
  expect(files).not.toContain('http.ts');
  expect(files).not.toContain('client.ts');
});
