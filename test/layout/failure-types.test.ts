/**
 * src/failures.ts names every failure type: every ApplicationFailure src/ raises takes its
 * type from there (or passes on a vendor error's class name, itself listed), no failure
 * type is spelled as a string literal elsewhere, the strings themselves never change
 * (committed histories and clients match them), and docs/failures.md lists each one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { FAILURE_TYPES, FailureType } from '../../src/failures';
import * as vendorErrors from '../../src/vendor-api/errors';
import { tsFiles } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '../..');
const HOME = path.join('src', 'failures.ts');

/** Expressions that pass a listed type on: a vendor error's class name (toFailureInfo), a stage's fatal outcome. */
const PASS_THROUGH = new Set(['info.type', 'outcome.type', 'FATAL_TYPES']);

interface Finding {
  where: string;
  text: string;
}

function sourceOf(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

function at(sf: ts.SourceFile, node: ts.Node): string {
  return `${sf.fileName}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
}

/** Calls whose second argument is the failure type. */
const SECOND_ARGUMENT = [
  'ApplicationFailure.nonRetryable',
  'ApplicationFailure.retryable',
  'ApplicationFailure',
  'stageFailure',
];

/** The expressions that name a failure's type: ApplicationFailure factories, stageFailure, nonRetryableErrorTypes. */
function typePositions(node: ts.Node): ts.Expression[] {
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    const callee = node.expression.getText();
    const args: readonly ts.Expression[] = node.arguments ?? [];
    if (SECOND_ARGUMENT.includes(callee)) return args.length > 1 ? [args[1]] : [];
    if (['ApplicationFailure.create', 'ApplicationFailure.fromError'].includes(callee)) {
      const opts = args.find((a): a is ts.ObjectLiteralExpression => ts.isObjectLiteralExpression(a));
      const type = opts?.properties.find((p) => p.name?.getText() === 'type');
      return type && ts.isPropertyAssignment(type) ? [type.initializer] : [];
    }
  }
  if (ts.isPropertyAssignment(node) && node.name.getText() === 'nonRetryableErrorTypes') {
    return ts.isArrayLiteralExpression(node.initializer) ? [...node.initializer.elements] : [node.initializer];
  }
  return [];
}

function isListedConstant(e: ts.Expression): boolean {
  return (
    ts.isPropertyAccessExpression(e) &&
    e.expression.getText() === 'FailureType' &&
    Object.hasOwn(FailureType, e.name.text)
  );
}

/** Failure types spelled as literals, and type positions that name no listed type. */
function scan(file: string): { literals: Finding[]; unlisted: Finding[] } {
  const sf = sourceOf(file);
  const literals: Finding[] = [];
  const unlisted: Finding[] = [];
  const listed = new Set<string>(FAILURE_TYPES);
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && listed.has(node.text)) {
      literals.push({ where: at(sf, node), text: node.getText(sf) });
    }
    for (const e of typePositions(node)) {
      if (!isListedConstant(e) && !PASS_THROUGH.has(e.getText(sf)))
        unlisted.push({ where: at(sf, e), text: e.getText(sf) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { literals, unlisted };
}

const files = tsFiles(ROOT, 'src').filter((f) => f !== HOME);
const found = files.map(scan);

test('the failure type strings never change', () => {
  expect(FAILURE_TYPES).toEqual([
    ...['VendorError', 'NotSentError', 'AmbiguousError', 'ResponseShapeError', 'RateLimitedError'],
    ...['RejectedError', 'NotFoundError', 'UnauthorizedError', 'ForbiddenError', 'UpstreamFailedError'],
    ...['MissingCredentialError', 'VendorConfigError', 'VendorCheckFailed'],
    ...['InvalidDefinition', 'PlaintextPayloadRefused'],
    ...['InvalidReference'],
    ...['ReviewNotPassed', 'ReviewCancelled', 'ReviewFailed', 'AssetFailed', 'GenerationExpired'],
    ...[
      'GenerationFailed',
      'VideoUrlExpired',
      'EraseFailed',
      'BudgetExceeded',
      'SpendNotGranted',
      'VendorUnavailable',
      'AmbiguousCreate',
    ],
    ...['CreateAbandoned', 'TaskUnknownAtVendor', 'QueryRejected', 'VendorTaskDeadline', 'ReusedOutputExpired'],
    ...['TaskIdRefused', 'ReuseRefused'],
    ...['PipelineFailed'],
    ...['ArchiveUrlGone', 'ArchiveHttpError', 'ArchiveNetworkError', 'ArchiveSizeMismatch', 'ArchiveTooLarge'],
    ...['ArchiveAddressRefused', 'ArchiveUnsafePath', 'ArchiveDiskFull', 'ArchiveInvalidInput', 'ArchiveWriteError'],
    ...['ArchiveStoreError'],
    ...['WebhookAddressRefused', 'WebhookHttpError', 'WebhookNetworkError'],
    ...['WebhookEventRefused', 'WebhookPipelineNotClosed'],
  ]);
  for (const [key, value] of Object.entries(FailureType)) expect(value).toBe(key);
});

test('every failure type src/ raises is a FailureType constant (or a listed type passed on)', () => {
  const positions = files.map((f) => sourceOf(f).text.match(/ApplicationFailure\.|stageFailure\(/g)?.length ?? 0);
  expect(positions.reduce((a, b) => a + b, 0)).toBeGreaterThan(30); // the scan sees the raising code
  expect(found.flatMap((f) => f.unlisted)).toEqual([]);
});

test('no failure type is spelled as a string literal outside src/failures.ts', () => {
  expect(found.flatMap((f) => f.literals)).toEqual([]);
});

test("every vendor error class's name, which activities use as the failure type, is listed", () => {
  const classes = (Object.values(vendorErrors) as unknown[]).filter(
    (v): v is new (m: string, o: never) => Error =>
      typeof v === 'function' && (v as { prototype?: unknown }).prototype instanceof Error,
  );
  expect(classes.length).toBeGreaterThanOrEqual(12);
  for (const Cls of classes) {
    const err = new Cls('m', { endpoint: 'x' } as never);
    expect(FAILURE_TYPES).toContain(err.name);
    expect(FAILURE_TYPES).toContain(vendorErrors.toFailureInfo(err).type);
  }
});

test('docs/failures.md lists every failure type', () => {
  const page = readFileSync(path.join(ROOT, 'docs', 'failures.md'), 'utf8');
  const section = page.split(/^# Failure types$/m)[1]?.split(/^#{1,3} /m)[0] ?? '';
  const rows = new Set([...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]));
  expect(FAILURE_TYPES.filter((t) => !rows.has(t))).toEqual([]);
  expect([...rows].filter((t) => !(FAILURE_TYPES as readonly string[]).includes(t))).toEqual([]);
});
