/**
 * Workflow code stays readable as named steps: no function (declaration, method, arrow or
 * function expression, nested ones included) in src/workflows is longer than 60 lines.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { tsFiles } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '../..');
const MAX_LINES = 60;

function nameOf(node: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  return '(anonymous)';
}

/** Every function in `file` longer than MAX_LINES, as "file:line name (n lines)". */
function longFunctions(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node;
      const lines = line(fn.getEnd()) - line(fn.getStart(sf)) + 1;
      if (lines > MAX_LINES) found.push(`${file}:${line(fn.getStart(sf))} ${nameOf(fn, sf)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

test(`no function in src/workflows is longer than ${MAX_LINES} lines`, () => {
  const files = tsFiles(ROOT, path.join('src', 'workflows'));
  expect(files.length).toBeGreaterThan(15);
  expect(files.flatMap(longFunctions)).toEqual([]);
});
