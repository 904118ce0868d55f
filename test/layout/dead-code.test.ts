/**
 * No dead exports: every name src/ exports is used somewhere, in its own module or by
 * another module of src/, test/ or tools/ (the library's public names count as used by
 * src/index.ts, which re-exports them). Comments do not count as uses.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { tsFiles } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '../..');

const withoutComments = (src: string) => src.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
const code = new Map(
  ['src', 'test', 'tools']
    .flatMap((dir) => tsFiles(ROOT, dir))
    .map((f) => [f, withoutComments(readFileSync(path.join(ROOT, f), 'utf8'))]),
);
const DECLARATION = /^export (?:async )?(?:const|function|class|type|interface|enum|let) ([A-Za-z_$][\w$]*)/gm;

const exported = [...code]
  .filter(([f]) => f.startsWith(`src${path.sep}`))
  .flatMap(([file, src]) => [...src.matchAll(DECLARATION)].map((m) => ({ file, name: m[1] })));

test('every export of src/ has a use', () => {
  expect(exported.length).toBeGreaterThan(100);
  const unused = exported.filter(({ file, name }) => {
    const word = `\\b${name.replace(/\$/g, '\\$')}\\b`;
    const own = (code.get(file)!.match(new RegExp(word, 'g')) ?? []).length;
    return own <= 1 && ![...code].some(([f, src]) => f !== file && new RegExp(word).test(src));
  });
  expect(unused.map(({ file, name }) => `${file}: ${name}`)).toEqual([]);
});
