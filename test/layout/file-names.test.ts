/** One way to spell a file name: lower-case words joined by `-` (request-log.ts, not requestLog.ts). */
import path from 'node:path';
import { readdirSync } from 'node:fs';

const ROOT = path.resolve(__dirname, '../..');
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*$/;
/** A folder's README (and the emulator's) keeps the name readers look for. */
const EXEMPT = new Set(['README-emulator.md', 'README.md']);

function names(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    return e.isDirectory() ? [rel, ...names(rel)] : [rel];
  });
}

test('every file and folder of src/, test/ and tools/ has a kebab-case name', () => {
  const odd = ['src', 'test', 'tools']
    .flatMap(names)
    .filter((f) => !KEBAB.test(path.basename(f)) && !EXEMPT.has(path.basename(f)));
  expect(odd).toEqual([]);
});
