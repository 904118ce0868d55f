/**
 * Dependencies point one way: what a user installs and runs in production (the CLI, the
 * library, the worker, the standalone callback receiver) never loads the tools (tools/:
 * the dev stack, the bench) or the emulator, and the receiver loads nothing of the worker. ESLint forbids the direct
 * imports (eslint.config.mjs); this follows them transitively.
 */
import path from 'node:path';
import { importsOf, reachableFrom, tsFiles } from '../support/import-graph';

const SRC = path.resolve(__dirname, '../../src');

function folderOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0];
}

/** The folder (or top-level file, without .ts) of a path relative to src/. */
const topOf = (rel: string): string => rel.split(path.sep)[0].replace(/\.ts$/, '');

function reached(entry: string): string[] {
  return [...reachableFrom(path.join(SRC, entry))]
    .filter((f) => !f.startsWith('pkg:'))
    .map((f) => path.relative(SRC, f));
}

const ENTRIES = ['starters/cli/main.ts', 'index.ts', 'workers/index.ts', 'workers/main.ts', 'callbacks/main.ts'];

it.each(ENTRIES)('%s loads neither the tools (dev stack, bench) nor the emulator', (entry) => {
  const offending = reached(entry).filter((f) => f.startsWith('..') || folderOf(path.join(SRC, f)) === 'emulator');
  expect(offending).toEqual([]);
});

test('the standalone callback receiver reads its own config and loads no worker or CLI module', () => {
  const offending = reached('callbacks/main.ts').filter((f) =>
    ['workers', 'starters'].includes(folderOf(path.join(SRC, f))),
  );
  expect(offending).toEqual([]);
});

test('the library client (starters/client) loads nothing of the command line (starters/cli)', () => {
  const clientFiles = tsFiles(SRC, path.join('starters', 'client'));
  const offending = clientFiles.flatMap((file) =>
    reached(file).filter((f) => f.startsWith(path.join('starters', 'cli') + path.sep)),
  );
  expect(offending).toEqual([]);
  expect(reached('index.ts').filter((f) => f.startsWith(path.join('starters', 'cli') + path.sep))).toEqual([]);
});

test('the demo lives with the dev stack, and `reelflow setup` registers search attributes without it', () => {
  const registers = path.join('starters', 'client', 'register-search-attributes.ts');
  expect(reached('../tools/devstack/demo.ts')).toContain(registers);
  expect(reached('starters/cli/main.ts')).toContain(registers);
});

/**
 * The arrows between src/'s folders (and its top-level files), type-only imports included:
 * a folder imports only what stands below it, so the graph has no circle. A new arrow is a
 * design decision: add it here, below its target, and in docs/architecture.md.
 */
const ALLOWED: Record<string, string[]> = {
  failures: [],
  'vendor-api': ['failures'],
  telemetry: ['vendor-api'],
  definition: ['vendor-api'],
  config: ['telemetry'],
  // The contract every side imports: pure modules only (the definition's types, the zod-free vendor values).
  contract: ['definition', 'failures', 'vendor-api'],
  emulator: ['vendor-api'],
  metrics: ['contract', 'failures', 'vendor-api'],
  codec: ['config', 'definition'],
  webhooks: ['config', 'definition'],
  activities: ['contract', 'definition', 'failures', 'metrics', 'vendor-api', 'webhooks'],
  // Workflows see activities only through `import type` (eslint.config.mjs enforces it); of the
  // codec only its pure plaintext mark.
  workflows: ['activities', 'codec', 'contract', 'definition', 'failures', 'metrics', 'vendor-api'],
  callbacks: ['codec', 'config', 'contract', 'telemetry', 'vendor-api'],
  // `reelflow doctor` runs the worker's own start-up checks (src/workers/doctor) from the CLI.
  starters: ['codec', 'config', 'contract', 'definition', 'failures', 'telemetry', 'vendor-api', 'webhooks', 'workers'],
  workers: [
    'activities',
    'callbacks',
    'codec',
    'config',
    'contract',
    'definition',
    'metrics',
    'telemetry',
    'vendor-api',
    'webhooks',
  ],
  // The package entry re-exports the library. Nothing in src/ imports tools/ (the arrow would read `-> ..`).
  index: ['activities', 'codec', 'contract', 'definition', 'failures', 'starters', 'webhooks', 'workers'],
};

test('each folder imports only the folders below it', () => {
  const found: Record<string, Set<string>> = {};
  for (const file of tsFiles(SRC, '.')) {
    const from = topOf(file);
    for (const spec of importsOf(path.join(SRC, file)).filter((s) => s.startsWith('.'))) {
      const to = topOf(path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), spec)));
      if (to !== from) (found[from] ??= new Set()).add(to);
    }
  }
  const arrows = Object.fromEntries(Object.entries(found).map(([k, v]) => [k, [...v].sort()]));
  const extra = Object.entries(arrows).flatMap(([from, tos]) =>
    tos.filter((to) => !(ALLOWED[from] ?? []).includes(to)).map((to) => `${from} -> ${to}`),
  );
  expect(extra).toEqual([]);
});

test('the contract imports no package but the Temporal SDK (no zod, no node built-ins)', () => {
  const packages = tsFiles(SRC, 'contract').flatMap((file) =>
    importsOf(path.join(SRC, file)).filter((s) => !s.startsWith('.')),
  );
  expect([...new Set(packages)].sort()).toEqual(['@temporalio/common', '@temporalio/workflow']);
});
