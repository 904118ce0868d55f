/**
 * Every definition shown in the README and docs/ is one a reader can save as a file and run:
 * a ```json or ```jsonc block holding a definition (a top-level review, assets or generation)
 * is plain JSON (definition files take no comments: docs/definitions.md) and passes the
 * same validation as `reelflow validate`.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseJsonText, validateDefinitionValue } from '../../src/starters/client/definition-file';
import { fences, readPage, ROOT } from './markdown';

const STAGES = ['review', 'assets', 'generation'];

function jsonBlocks(): { where: string; text: string }[] {
  const pages = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))].map((f) =>
    f === 'README.md' ? f : `docs/${f}`,
  );
  return pages.flatMap((page) =>
    fences(readPage(page))
      .filter((f) => f.lang === 'json' || f.lang === 'jsonc')
      .map((f) => ({ where: `${page}:${f.line}`, text: f.text })),
  );
}

/** Looks like a definition: an object naming a stage at its top, whether or not it parses. */
function isDefinition(text: string): boolean {
  return STAGES.some((s) => new RegExp(`^\\s{0,2}"${s}"\\s*:`, 'm').test(text));
}

const definitions = jsonBlocks().filter((b) => isDefinition(b.text));

test('the docs show definitions (the pages are read)', () => {
  // docs/definitions.md (every field), docs/library.md ($schema), docs/webhooks.md (notify).
  expect(definitions.map((d) => d.where.split(':')[0])).toEqual(
    expect.arrayContaining(['docs/definitions.md', 'docs/library.md', 'docs/webhooks.md']),
  );
});

test.each(definitions.map((d) => [d.where, d.text]))('%s is a valid definition file', (where, text) => {
  const loaded = validateDefinitionValue(parseJsonText(text, where), where);
  expect(loaded.definition).toBeDefined();
});

test('a block with comments is refused as a definition file would be', () => {
  const text = '{\n  "generation": { "model": "m", "content": [{ "type": "text", "text": "a" }] } // note\n}\n';
  expect(isDefinition(text)).toBe(true);
  expect(() => parseJsonText(text, 'x.json')).toThrow(/^x\.json:2:\d+: invalid JSON/);
});
