/**
 * The README is a front door (at most 300 lines) and docs/ holds one page per concern; every
 * relative link in them leads somewhere: to a file that exists and, for a `#anchor` into a
 * Markdown file, to one of its headings (GitHub's slugs).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { relativeLinks, slugsOf } from './markdown';

const ROOT = path.resolve(__dirname, '../..');
const README_MAX_LINES = 300;

function pages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  for (const target of relativeLinks(text)) {
    const [file, anchor] = target.split('#', 2);
    const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
    const absolute = path.join(ROOT, resolved);
    if (!existsSync(absolute)) {
      broken.push(`${page}: ${target} (no file ${resolved})`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !slugsOf(readFileSync(absolute, 'utf8')).has(anchor)) {
      broken.push(`${page}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  return broken;
}

test(`the README is a front door of at most ${README_MAX_LINES} lines`, () => {
  const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
  expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
});

test("the README's first screen names the vendor API, how to tell an account fits, and the contract", () => {
  const first = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').slice(0, 45).join('\n');
  expect(first).toContain('[docs/vendor-contract.md](docs/vendor-contract.md)');
  expect(first).toMatch(/Ark content-generation task API/);
  for (const family of ['video generation', 'subtitle erase', 'asset management', 'media review'])
    expect(first).toContain(`| ${family} |`);
  // The paths it shows are the ones the client calls (src/vendor-api), so the table cannot drift.
  const client = ['generation', 'erase', 'assets', 'review']
    .map((f) => readFileSync(path.join(ROOT, 'src/vendor-api', `${f}.ts`), 'utf8'))
    .join('\n');
  for (const p of [
    '/v1/task/create',
    '/v1/task/get/',
    '-erase-video-subtitle-pro',
    '-tasks/',
    '/api/asset-management?Action=',
    '/api/asset/upload/',
    '/api/task/',
  ]) {
    expect(first).toContain(p);
    expect(client).toContain(p);
  }
});

test('every relative link in README.md and docs/*.md leads to a file and heading that exist', () => {
  const all = pages();
  expect(all.length).toBeGreaterThan(5); // the docs/ pages are there to check
  expect(all.flatMap(brokenLinks)).toEqual([]);
});

test('the slug and link readers follow GitHub', () => {
  expect([...slugsOf('# Codec server: decrypting in the Web UI and the CLI\n## A\n## A\n```\n# not\n```')]).toEqual([
    'codec-server-decrypting-in-the-web-ui-and-the-cli',
    'a',
    'a-1',
  ]);
  expect([...slugsOf('## Benchmark: `npm run bench`\n### Rerun: reuse paid work')]).toEqual([
    'benchmark-npm-run-bench',
    'rerun-reuse-paid-work',
  ]);
  expect(relativeLinks('[a](docs/x.md#y) [b](https://e.com) `[c](z.md)` ![d](p.png)\n```\n[e](f.md)\n```')).toEqual([
    'docs/x.md#y',
    'p.png',
  ]);
});
