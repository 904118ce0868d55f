/**
 * The workflow bundle preloads the workflow modules once per worker (src/workers/bundle.ts):
 * every cached workflow shares one instance of each, deep-frozen by the SDK. That is only
 * safe while no module keeps state of its own at its top level, which the SDK's freeze does
 * not catch (a `let`, a Map or a Set). This test walks every module the workflows import and
 * refuses such state.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve(__dirname, '../../src');
const UNFROZEN = /^(Map|Set|WeakMap|WeakSet|WeakRef)$/;

/** The relative modules a file imports for their values (type-only imports are not bundled). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const typeOnly = (clause: ts.ImportClause | undefined): boolean =>
    !!clause &&
    (clause.isTypeOnly ||
      (!clause.name &&
        !!clause.namedBindings &&
        ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.every((e) => e.isTypeOnly)));
  return source.statements.flatMap((s) => {
    const spec = (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) return [];
    if (ts.isImportDeclaration(s) && typeOnly(s.importClause)) return [];
    if (ts.isExportDeclaration(s) && s.isTypeOnly) return [];
    return [spec.text];
  });
}

function workflowModules(): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of valueImports(file)) {
      const base = path.resolve(path.dirname(file), spec);
      visit([`${base}.ts`, path.join(base, 'index.ts')].find((f) => ts.sys.fileExists(f)) ?? `${base}.ts`);
    }
  };
  visit(path.join(SRC, 'workflows/index.ts'));
  return [...seen];
}

/**
 * Top-level state a frozen module would still share between workflows: `let`/`var`, or a
 * Map, Set… made there, unless it is declared read-only (a lookup table).
 */
function moduleState(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const where = (node: ts.Node) =>
    `${path.relative(SRC, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const findUnfrozen = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) return; // made per call, not per module
    if (ts.isNewExpression(node) && UNFROZEN.test(node.expression.getText()))
      found.push(`${where(node)} new ${node.expression.getText()}`);
    ts.forEachChild(node, findUnfrozen);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement) && !(statement.declarationList.flags & ts.NodeFlags.Const))
      found.push(`${where(statement)} a top-level let or var`);
    const readOnly =
      ts.isVariableStatement(statement) &&
      statement.declarationList.declarations.every((d) => d.type?.getText().startsWith('Readonly'));
    if (!ts.isClassDeclaration(statement) && !readOnly) findUnfrozen(statement);
  }
  return found;
}

test('the modules the workflows import are found (the walk follows the imports)', () => {
  const modules = workflowModules().map((f) => path.relative(SRC, f));
  expect(modules).toEqual(
    expect.arrayContaining([
      'workflows/video-pipeline.ts',
      'workflows/lib/callbacks/callback-book.ts',
      'contract/messages.ts',
    ]),
  );
  expect(modules.length).toBeGreaterThan(40);
});

test('no workflow module keeps mutable state at its top level (they are preloaded and shared)', () => {
  expect(workflowModules().flatMap(moduleState)).toEqual([]);
});

test('the check sees the state it refuses', () => {
  const probe = path.join(__dirname, 'preload-probe.fixture.ts');
  expect(moduleState(probe)).toEqual(
    [
      'test/workers/preload-probe.fixture.ts:2 a top-level let or var',
      'test/workers/preload-probe.fixture.ts:3 new Map',
    ].map((l) => l.replace('test/workers/', '../test/workers/')),
  );
});
