/**
 * Dependencies point one way. src/'s layers import only what test/layout/layers.json lets
 * them (eslint.config.mjs checks each import as it is written; this checks the whole graph,
 * and that docs/architecture.md shows the same list); no module reaches itself again. What a
 * user installs and runs in production (the CLI, the library, the worker, the standalone
 * callback receiver) never loads the tools (tools/: the dev stack, the bench) or the
 * emulator, and the receiver loads nothing of the worker: followed transitively here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importsOf, reachableFrom, resolveTs, tsFiles } from '../support/import-graph';
import { LAYERS, PICTURE_BEGIN, PICTURE_END, renderPicture } from './layers';

const SRC = path.resolve(__dirname, '../../src');

/** The layer of a file: its src/ folder, or the top-level file itself (`index.ts`). */
const layerOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0];

function reached(entry: string): string[] {
  return [...reachableFrom(path.join(SRC, entry))]
    .filter((f) => !f.startsWith('pkg:'))
    .map((f) => path.relative(SRC, f));
}

const ENTRIES = ['starters/cli/main.ts', 'index.ts', 'workers/index.ts', 'workers/main.ts', 'callbacks/main.ts'];

it.each(ENTRIES)('%s loads neither the tools (dev stack, bench) nor the emulator', (entry) => {
  const offending = reached(entry).filter((f) => f.startsWith('..') || layerOf(path.join(SRC, f)) === 'emulator');
  expect(offending).toEqual([]);
});

test('the standalone callback receiver reads its own config and loads no worker or CLI module', () => {
  const offending = reached('callbacks/main.ts').filter((f) =>
    ['workers', 'starters'].includes(layerOf(path.join(SRC, f))),
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
 * The arrows between src/'s layers (its folders and top-level files), type-only imports
 * included, against test/layout/layers.json: a layer imports only the layers listed before
 * it, so no arrow climbs back up and the graph has no circle.
 */
const ALLOWED: Record<string, readonly string[]> = Object.fromEntries(LAYERS.map((l) => [l.name, l.imports]));

function arrows(): Record<string, string[]> {
  const found: Record<string, Set<string>> = {};
  for (const file of tsFiles(SRC, '.').map((f) => path.join(SRC, f))) {
    const from = layerOf(file);
    for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
      const to = layerOf(resolveTs(file, spec));
      if (to !== from) (found[from] ??= new Set()).add(to);
    }
  }
  return Object.fromEntries(Object.entries(found).map(([k, v]) => [k, [...v].sort()]));
}

test('layers.json names every folder and top-level file of src/, once, and nothing else', () => {
  const names = LAYERS.map((l) => l.name);
  expect(new Set(names).size).toBe(names.length);
  const entries = readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
    .map((e) => e.name);
  expect([...names].sort()).toEqual(entries.sort());
});

test('each layer may import only layers listed below it: no arrow climbs, no circle', () => {
  const climbing = LAYERS.flatMap((l, i) => {
    const below = LAYERS.slice(0, i).map((b) => b.name);
    return [...l.imports, ...(l.typeOnly ?? [])].filter((to) => !below.includes(to)).map((to) => `${l.name} -> ${to}`);
  });
  expect(climbing).toEqual([]);
  const typeOnlyOutside = LAYERS.flatMap((l) => (l.typeOnly ?? []).filter((to) => !l.imports.includes(to)));
  expect(typeOnlyOutside).toEqual([]);
});

test('each folder imports only the layers layers.json allows it', () => {
  const extra = Object.entries(arrows()).flatMap(([from, tos]) =>
    tos.filter((to) => !(ALLOWED[from] ?? []).includes(to)).map((to) => `${from} -> ${to}`),
  );
  expect(extra).toEqual([]);
});

test('no module of src/ reaches itself again through its imports (type-only ones included)', () => {
  const files = tsFiles(SRC, '.').map((f) => path.join(SRC, f));
  const next = new Map(
    files.map((f) => [
      f,
      importsOf(f)
        .filter((s) => s.startsWith('.'))
        .map((s) => resolveTs(f, s)),
    ]),
  );
  expect(circles(files, next).map((c) => c.map((f) => path.relative(SRC, f)))).toEqual([]);
});

/** The strongly connected components of more than one module (Tarjan): each holds a circle. */
function circles(nodes: readonly string[], next: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) visit(w);
      if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = stack.splice(stack.indexOf(v));
    if (component.length > 1 || (next.get(v) ?? []).includes(v)) found.push(component);
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

test('docs/architecture.md shows the layers as layers.json lists them', () => {
  const doc = readFileSync(path.resolve(__dirname, '../../docs/architecture.md'), 'utf8');
  const begin = doc.indexOf(PICTURE_BEGIN);
  const shown = begin < 0 ? '' : doc.slice(begin, doc.indexOf(PICTURE_END, begin) + PICTURE_END.length);
  // On a difference, put the expected block in docs/architecture.md in place of the shown one.
  expect(shown).toBe(renderPicture());
});

test('the contract imports no package but the Temporal SDK (no zod, no node built-ins)', () => {
  const packages = tsFiles(SRC, 'contract').flatMap((file) =>
    importsOf(path.join(SRC, file)).filter((s) => !s.startsWith('.')),
  );
  expect([...new Set(packages)].sort()).toEqual(['@temporalio/common', '@temporalio/workflow']);
});
