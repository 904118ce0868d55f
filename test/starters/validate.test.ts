import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDefinition } from '../../src/definition/definition';
import {
  definedStages,
  pipelineDetails,
  pipelineSummary,
  pipelineWorkflowId,
} from '../../src/starters/client/pipeline-client';
import { ROOT, cli } from '../support/cli';

const EXAMPLES = readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json'));

test('the examples are there', () => {
  expect(EXAMPLES).toEqual(expect.arrayContaining(['pipeline.json', 'generation-only.json', 'review-only.json']));
});

test.each(EXAMPLES)('reelflow validate examples/%s', async (name) => {
  const r = await cli(['validate', `examples/${name}`]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(new RegExp(`^examples/${name.replace('.', '\\.')}: valid\n`));
});

test('examples/pipeline.json runs all four stages with callbacks, refs and a group by name', async () => {
  const r = await cli(['validate', 'examples/pipeline.json', '--json']);
  const doc = r.json();
  expect(doc).toMatchObject({ valid: true, name: 'demo', stages: ['review', 'assets', 'generation', 'erase'] });
  const def = doc.definition;
  expect(def.options.callbacks).toBe(true);
  expect(def.assets.group).toHaveProperty('name');
  expect(def.assets.items).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ fromReview: 0 }),
      expect.objectContaining({ url: expect.any(String) }),
    ]),
  );
  const urls = def.generation.content.filter((c: any) => c.type === 'image_url').map((c: any) => c.image_url.url);
  expect(urls).toEqual(expect.arrayContaining(['ref:review/0', expect.stringMatching(/^ref:asset\//)]));
  expect(def.generation.content.find((c: any) => c.image_url?.url === 'ref:review/0').role).toBe('first_frame');
});

test('an invalid definition: exit 2, one line per field, file named', async () => {
  const bad = JSON.stringify({ generation: { model: 'm', content: [] }, erase: true, bogus: 1 });
  const r = await cli(['validate', '-'], { stdin: bad });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^<stdin>: generation\.content: /),
      '<stdin>: bogus: is not a known field',
    ]),
  );
  const j = await cli(['validate', '-', '--json'], { stdin: bad });
  expect(j.json().error).toMatchObject({
    kind: 'definition',
    file: '<stdin>',
    issues: expect.arrayContaining([expect.objectContaining({ path: 'generation.content' })]),
  });
});

test('a misspelt field: "did you mean", as for a misspelt flag', async () => {
  const r = await cli(['validate', '-'], {
    stdin: JSON.stringify({ review: { media: ['https://a.example.com/r.png'] }, optoins: {} }),
  });
  expect(r.code).toBe(2);
  expect(r.stderr).toBe('<stdin>: optoins: is not a known field (did you mean "options"?)\n');
});

test('a missing file: exit 2 naming it', async () => {
  const r = await cli(['validate', 'examples/nope.json']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^examples\/nope\.json: no such file/);
});

test('summary, details and ids describe the stages without URLs', () => {
  const def = parseDefinition(JSON.parse(readFileSync(path.join(ROOT, 'examples/pipeline.json'), 'utf8')));
  expect(definedStages(def)).toEqual(['review', 'assets', 'generation', 'erase']);
  expect(pipelineSummary(def)).toBe(
    'demo: review 2 media → 2 assets into group "reelflow-demo" → generate with video-gen-pro (2 media inputs) → erase subtitles',
  );
  const details = pipelineDetails(def);
  expect(details).toContain('| erase |');
  expect(details).not.toContain('https://');
  expect(pipelineWorkflowId(def)).toMatch(/^reelflow-demo-[a-z0-9]{8}$/);
  expect(pipelineWorkflowId({}, 'acme')).toMatch(/^acme-pipeline-[a-z0-9]{8}$/);
});
