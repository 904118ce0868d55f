import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  DefinitionFileError,
  lineColumn,
  loadDefinitionFile,
  parseJsonText,
} from '../../src/starters/client/definition-file';

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-def-'));
function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}
async function failure(p: string, opts = {}): Promise<DefinitionFileError> {
  try {
    await loadDefinitionFile(p, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(DefinitionFileError);
    return err as DefinitionFileError;
  }
  throw new Error(`expected ${p} to fail`);
}

const GOOD = { name: 'x', generation: { model: 'm', content: [{ type: 'text', text: 'hi' }] } };

test('a valid file loads with defaults applied and the input kept as written', async () => {
  const loaded = await loadDefinitionFile(file('good.json', JSON.stringify(GOOD)));
  expect(loaded.input).toEqual(GOOD);
  expect(loaded.definition.options.profile).toBe('default');
  expect(loaded.definition.erase).toBe(false);
});

test('a missing file names the path', async () => {
  const err = await failure('does/not/exist.json', { cwd: dir });
  expect(err.kind).toBe('not-found');
  expect(err.message).toContain('does/not/exist.json: no such file');
  expect(err.message).toContain(path.join(dir, 'does/not/exist.json'));
});

test('a directory is refused', async () => {
  const err = await failure(dir);
  expect(err.kind).toBe('unreadable');
  expect(err.message).toMatch(/is a directory/);
});

test('invalid JSON reports line and column', async () => {
  const p = file('bad.json', '{\n  "name": "x",\n  "erase": true\n  "generation": {}\n}\n');
  const err = await failure(p);
  expect(err.kind).toBe('json');
  expect(err.line).toBe(4);
  expect(err.column).toBe(3);
  expect(err.message).toBe(`${p}:4:3: invalid JSON: Expected ',' or '}' after property value`);
});

test('truncated JSON points at the end', () => {
  expect(() => parseJsonText('{\n "a": [1,', 'f.json')).toThrow(/^f\.json:2:10: invalid JSON: unexpected end of input/);
});

test('an empty file says so', () => {
  expect(() => parseJsonText('  \n', 'f.json')).toThrow('f.json: empty file');
});

test('a BOM is tolerated', () => {
  expect(parseJsonText('\ufeff{"a":1}', 'f.json')).toEqual({ a: 1 });
});

test('lineColumn counts from 1', () => {
  expect(lineColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
  expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
});

test('definition errors name every field path', async () => {
  const p = file(
    'fields.json',
    JSON.stringify({
      name: 'bad name!',
      generation: { model: '', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,xx' } }] },
      erase: 'yes',
    }),
  );
  const err = await failure(p);
  expect(err.kind).toBe('definition');
  const paths = err.issues.map((i) => i.path);
  expect(paths).toEqual(
    expect.arrayContaining(['name', 'generation.model', 'generation.content[0].image_url.url', 'erase']),
  );
  expect(err.lines()).toContainEqual(
    expect.stringMatching(
      new RegExp(
        `^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: generation\\.content\\[0\\]\\.image_url\\.url: .*base64`,
      ),
    ),
  );
});

test('cross-field rules name the referring field', async () => {
  const err = await failure(
    file(
      'refs.json',
      JSON.stringify({
        generation: { model: 'm', content: [{ type: 'image_url', image_url: { url: 'ref:asset/nope' } }] },
      }),
    ),
  );
  expect(err.issues).toEqual([
    { path: 'generation.content[0].image_url.url', message: 'no asset named "nope" in assets.items' },
  ]);
});

test('a JSON array or string is not a definition', async () => {
  const err = await failure(file('array.json', '[1, 2]'));
  expect(err.message).toContain('a pipeline definition is a JSON object, got an array');
});

test('"-" reads stdin', async () => {
  const loaded = await loadDefinitionFile('-', { stdin: Readable.from([JSON.stringify(GOOD)]) });
  expect(loaded.source).toBe('<stdin>');
  expect(loaded.definition.name).toBe('x');
  const err = await failure('-', { stdin: Readable.from(['{']) });
  expect(err.message).toMatch(/^<stdin>:1:2: invalid JSON/);
});
