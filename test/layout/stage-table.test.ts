/**
 * One stage table (docs/architecture.md, "How to add a stage"): src/contract/stages.ts declares
 * every stage, task kind and vendor interface once, and every closed list of them is read from
 * it. So no file of src/ spells such a list by hand: no union of two or more of those names as
 * string literals (`'generation' | 'erase'`), and no array literal of two or more of them
 * (`['review', 'assets']`). A type-equality test would not do: a hand-written union that
 * happens to equal the table's today passes it, and drifts the day a stage is added.
 * The emulator is the vendor, not reelflow: it speaks its own API and stays out.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { STAGES, TASK_KINDS, VENDOR_INTERFACES } from '../../src/contract/stages';
import { PIPELINE_STAGES } from '../../src/workflows/video-pipeline';
import { tsFiles } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '../..');
const TABLE = path.join('src', 'contract', 'stages.ts');
const EMULATOR = path.join('src', 'emulator') + path.sep;
const NAMES = new Set<string>([...STAGES, ...TASK_KINDS, ...VENDOR_INTERFACES]);

/**
 * Lists that name the same words but are not lists of stages, as "<file>: <text>", each with
 * why. Keep this short: a new entry needs a reason a reader accepts.
 */
const ALLOWED: Record<string, string> = {
  "src/definition/one-pass.ts: ['review', 'assets', 'generation']":
    "the definition's sections a cross-field rule reads (the definition sits below the contract)",
  "src/definition/one-pass.ts: ['generation', 'erase']":
    "the definition's sections a cross-field rule reads (the definition sits below the contract)",
  "src/definition/one-pass.ts: ['review', 'assets', 'options']": 'definition sections, options among them',
  "src/definition/one-pass.ts: ['review', 'assets', 'generation', 'options']":
    'definition sections, options among them',
  "src/starters/cli/spec.ts: ['schedule', 'archive', 'groups', 'assets', 'review', 'budget']":
    "the CLI's command groups: `reelflow assets …` and `reelflow review …` are vendor commands",
};

/** The table's names among a list of nodes that are string literals. */
function tableNames(nodes: readonly ts.Node[]): string[] {
  return nodes.flatMap((n) => {
    const literal = ts.isLiteralTypeNode(n) ? n.literal : n;
    return ts.isStringLiteral(literal) && NAMES.has(literal.text) ? [literal.text] : [];
  });
}

/** Every hand-written list of two or more of the table's names in `source`, as "<line>: <text>". */
export function handWrittenLists(fileName: string, source: string): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const members = ts.isUnionTypeNode(node)
      ? node.types
      : ts.isArrayLiteralExpression(node)
        ? node.elements
        : undefined;
    if (members && tableNames(members).length >= 2) {
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const text = node.getText(sf);
      if (!(`${fileName.split(path.sep).join('/')}: ${text}` in ALLOWED)) found.push(`${fileName}:${line}: ${text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

test('the detector finds a hand-written union or list of stage or kind names', () => {
  const snippet = [
    "type A = 'generation' | 'erase' | 'unknown';",
    "const B = ['review', 'assets'] as const;",
    "type C = Record<'asset' | 'review', number>;",
    "type Fine = StageName | 'archive';",
    "const fine = ['generated', 'erased'];",
  ].join('\n');
  expect(handWrittenLists('snippet.ts', snippet).map((f) => f.split(': ')[0])).toEqual([
    'snippet.ts:1',
    'snippet.ts:2',
    'snippet.ts:3',
  ]);
});

test('no file of src/ but the stage table spells a list of stages, task kinds or vendor interfaces', () => {
  const files = tsFiles(ROOT, 'src').filter((f) => f !== TABLE && !f.startsWith(EMULATOR));
  expect(files.length).toBeGreaterThan(150);
  const found = files.flatMap((f) => handWrittenLists(f, readFileSync(path.join(ROOT, f), 'utf8')));
  expect(found).toEqual([]);
});

test('every allowed list is still in its file and says why', () => {
  const stale = Object.entries(ALLOWED).filter(([key, why]) => {
    const [file, text] = key.split(/: (.*)/s);
    return why.trim().length < 20 || !readFileSync(path.join(ROOT, file), 'utf8').includes(text);
  });
  expect(stale).toEqual([]);
});

test("the pipeline runs one stage definition per row of the table, in the table's order", () => {
  expect(PIPELINE_STAGES.map((s) => s.name)).toEqual(STAGES);
});
