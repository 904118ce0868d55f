/**
 * Dependencies point one way: what a user installs and runs in production (the CLI, the
 * library, the worker, the standalone callback receiver) never loads the dev stack or the
 * emulator, and the receiver loads nothing of the worker. ESLint forbids the direct
 * imports (eslint.config.mjs); this follows them transitively.
 */
import path from 'node:path';
import { reachableFrom } from './import-graph';

const SRC = path.resolve(__dirname, '../../src');

function folderOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0];
}

function reached(entry: string): string[] {
  return [...reachableFrom(path.join(SRC, entry))]
    .filter((f) => !f.startsWith('pkg:'))
    .map((f) => path.relative(SRC, f));
}

it.each(['starters/cli.ts', 'index.ts', 'workers/main.ts', 'callbacks/main.ts'])(
  '%s loads neither the dev stack nor the emulator',
  (entry) => {
    const offending = reached(entry).filter((f) => ['devstack', 'emulator'].includes(folderOf(path.join(SRC, f))));
    expect(offending).toEqual([]);
  },
);

test('the standalone callback receiver reads its own config and loads no worker or CLI module', () => {
  const offending = reached('callbacks/main.ts').filter((f) =>
    ['workers', 'starters'].includes(folderOf(path.join(SRC, f))),
  );
  expect(offending).toEqual([]);
});

test('the demo lives with the dev stack, and `reelflow setup` registers search attributes without it', () => {
  expect(reached('devstack/demo.ts')).toContain(path.join('starters', 'register-search-attributes.ts'));
  expect(reached('starters/cli.ts')).toContain(path.join('starters', 'register-search-attributes.ts'));
});
