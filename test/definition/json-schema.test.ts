/**
 * The definition's JSON Schema: the committed file is what the zod schema generates today
 * (regenerate with `npm run schema`), every example names it by `$schema` and passes it, and
 * it agrees with parseDefinition on the mistakes an editor should flag.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
// ajv (JSON Schema 2020-12) comes with the worker's webpack; only this test uses it.
import Ajv2020 from 'ajv/dist/2020';
import { parseDefinition } from '../../src/definition/definition';
import { DEFINITION_SCHEMA_FILE, EXAMPLES_SCHEMA_REF, definitionJsonSchema } from '../../src/definition/json-schema';

const ROOT = path.resolve(__dirname, '../..');
const committed = JSON.parse(readFileSync(path.join(ROOT, DEFINITION_SCHEMA_FILE), 'utf8'));
const EXAMPLES = readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json'));
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(committed);

test('the committed schema is the one the zod schema generates (run `npm run schema` after changing it)', () => {
  expect(committed).toEqual(definitionJsonSchema());
});

test.each(EXAMPLES)('examples/%s names the schema, passes it and parses', (name) => {
  const value = JSON.parse(readFileSync(path.join(ROOT, 'examples', name), 'utf8')) as Record<string, unknown>;
  expect(value.$schema).toBe(EXAMPLES_SCHEMA_REF);
  expect(validate(value)).toBe(true);
  expect(() => parseDefinition(value)).not.toThrow();
});

test.each([
  ['a wrong value', { erase: 'yes' }, '/erase'],
  ['a misspelt field', { generaton: { model: 'm', content: [{ type: 'text', text: 't' }] } }, ''],
  ['a misspelt option', { erase: true, options: { archiv: false } }, '/options'],
  ['an unknown content type', { generation: { model: 'm', content: [{ type: 'txt', text: 't' }] } }, '/generation'],
])('the schema refuses %s, as parseDefinition does', (_what, value, at) => {
  expect(validate(value)).toBe(false);
  expect(validate.errors?.map((e) => e.instancePath)).toEqual(
    expect.arrayContaining([expect.stringMatching(new RegExp(`^${at}`))]),
  );
  expect(() => parseDefinition(value)).toThrow('invalid pipeline definition');
});
