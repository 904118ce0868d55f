/**
 * Comments cite the project's own pages, and only places that are there: a comment naming
 * `docs/<page>.md` or `README.md`, with or without a quoted heading after it
 * (`(docs/tenants.md, "Budgets")`), names a page that exists and a heading (any level) of that
 * page. Nothing cites a numbered spec section or an issue number (`Spec 4.2`, `issue 8`): the
 * team's record of the vendor's interface is docs/vendor-contract.md, and the reason an issue
 * gave belongs in the docs page (or the comment) that keeps it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { tsFiles } from '../support/import-graph';
import { headingsOf, slugsOf } from './markdown';

const ROOT = path.resolve(__dirname, '../..');
const DIRS = ['src', 'tools', 'test'];

interface Citation {
  page: string;
  /** A quoted heading after the page: `docs/tenants.md, "Budgets"` or `docs/tenants.md ("Budgets")`. */
  heading?: string;
  /** A GitHub anchor on the page: `docs/tenants.md#budgets`. */
  anchor?: string;
}

/** Every comment of a TypeScript source, as one line of prose (`//`, `/*` and ` * ` dropped). */
function commentsOf(source: string): string[] {
  const sf = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, source.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(source, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(source, node.getEnd()));
    node.getChildren(sf).forEach(visit);
  };
  visit(sf);
  return [...seen.values()].map((c) =>
    c
      .replace(/^\/\/|^\/\*+|\*+\/$/g, '')
      .split('\n')
      .map((line) => line.replace(/^\s*(\*(?!\/)|\/\/)?/, '').trim())
      .join(' ')
      .trim(),
  );
}

/** The `docs/<page>.md` and `README.md` citations of a comment, each with its heading or anchor if any. */
function citationsIn(comment: string): Citation[] {
  const cites = /\b(docs\/[\w-]+\.md|README\.md|README(?=,? "))(?:#([\w-]+))?(?:,? \(?"([^"]+)")?/g;
  return [...comment.matchAll(cites)].map(([, page, anchor, heading]) => ({
    page: page === 'README' ? 'README.md' : page,
    ...(heading === undefined ? {} : { heading }),
    ...(anchor === undefined ? {} : { anchor }),
  }));
}

/** `Spec 4.2`, `spec 7.3`, `issue 8`, `issue #15`: places outside the repository. */
const outsideCitations = (comment: string) =>
  [...comment.matchAll(/\b(?:spec\s+\d+(?:\.\d+)*|issue\s+#?\d+)/gi)].map((m) => m[0]);

const plain = (heading: string) => heading.replace(/`/g, '').trim();

function markdownOf(page: string): string | undefined {
  const file = path.join(ROOT, page);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Why `citation` leads nowhere, or undefined when its page (and heading or anchor) exist. */
function wrongBecause({ page, heading, anchor }: Citation): string | undefined {
  const markdown = markdownOf(page);
  if (markdown === undefined) return `no file ${page}`;
  if (heading !== undefined && !headingsOf(markdown).map(plain).includes(plain(heading))) {
    return `no heading "${heading}" in ${page}`;
  }
  if (anchor !== undefined && !slugsOf(markdown).has(anchor)) return `no heading #${anchor} in ${page}`;
  return undefined;
}

const SELF = 'test/layout/comment-citations.test.ts'; // names the forbidden forms, as examples
const comments = DIRS.flatMap((dir) => tsFiles(ROOT, dir)).map((file) => ({
  file: file.split(path.sep).join('/'),
  comments: commentsOf(readFileSync(path.join(ROOT, file), 'utf8')),
}));

test('every docs/ or README citation in a comment names a page and heading that exist', () => {
  const cited = comments.flatMap(({ file, comments }) =>
    comments.flatMap(citationsIn).map((c) => ({ file, why: wrongBecause(c) })),
  );
  expect(cited.length).toBeGreaterThan(100); // the reader finds the code base's citations
  expect(cited.filter((c) => c.why).map((c) => `${c.file}: ${c.why}`)).toEqual([]);
});

test('no comment cites a spec section or an issue number', () => {
  const outside = comments
    .filter(({ file }) => file !== SELF)
    .flatMap(({ file, comments }) => comments.flatMap(outsideCitations).map((cite) => `${file}: ${cite}`));
  expect(outside).toEqual([]);
});

test('the comment and citation readers', () => {
  const source = [
    '/**',
    ' * Budgets (docs/tenants.md, "Budgets"; README "Callbacks"; docs/cli.md ("Schedules"))',
    ' * and docs/cli.md,',
    ' * "Rerun: reuse paid work". */',
    'const a = 1; // see README.md, docs/tenants.md#budgets and Spec 4.2 or issue #8',
    "const s = '// docs/not-a-comment.md';",
    'function f() {',
    '  // docs/last.md',
    '}',
  ].join('\n');
  const found = commentsOf(source);
  expect(found).toEqual([
    'Budgets (docs/tenants.md, "Budgets"; README "Callbacks"; docs/cli.md ("Schedules")) and docs/cli.md, "Rerun: reuse paid work".',
    'see README.md, docs/tenants.md#budgets and Spec 4.2 or issue #8',
    'docs/last.md',
  ]);
  expect(found.flatMap(citationsIn)).toEqual([
    { page: 'docs/tenants.md', heading: 'Budgets' },
    { page: 'README.md', heading: 'Callbacks' },
    { page: 'docs/cli.md', heading: 'Schedules' },
    { page: 'docs/cli.md', heading: 'Rerun: reuse paid work' },
    { page: 'README.md' },
    { page: 'docs/tenants.md', anchor: 'budgets' },
    { page: 'docs/last.md' },
  ]);
  expect(found.flatMap(outsideCitations)).toEqual(['Spec 4.2', 'issue #8']);
  expect(wrongBecause({ page: 'docs/tenants.md', heading: 'Budgets' })).toBeUndefined();
  expect(wrongBecause({ page: 'docs/tenants.md', heading: 'Nowhere' })).toMatch(/no heading/);
  expect(wrongBecause({ page: 'docs/tenants.md', anchor: 'nowhere' })).toMatch(/no heading #nowhere/);
  expect(wrongBecause({ page: 'docs/nowhere.md' })).toMatch(/no file/);
});
