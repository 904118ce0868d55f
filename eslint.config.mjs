// Lint: what the type checker cannot see. Workflow code must stay deterministic and
// sandbox-safe (no I/O, no node built-ins, no HTTP client, no emulator); no promise may
// float unawaited anywhere (a lost rejection in an activity or CLI hides a failure).
// typescript-eslint's recommendedTypeChecked on top: `any` leaking into typed code, assertions
// the types already prove, detached methods, async without await. Exceptions below name their reason.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import tseslint from 'typescript-eslint';

/** What sandboxed workflow code (and src/definition, whose refs and types it takes) must never import. */
const SANDBOX_PATTERNS = [
  { group: ['node:*'], message: 'workflow code runs in the deterministic sandbox: no node built-ins' },
  {
    group: ['undici', 'fs', 'path', 'crypto', 'http', 'https', 'child_process', 'os', 'net'],
    message: 'no I/O in workflow code',
  },
  {
    regex:
      '(^|/)vendor-api(/(index|http|client|context|generation|erase|assets|review|raw|config|assumed-shapes|schemas.*))?$',
    message:
      'import only the zod-free vendor modules (errors, batching, documented-values, assumed-values): schemas are evaluated in every workflow context',
  },
  {
    regex: '(^|/)metrics/(?!names$)',
    message: 'workflow code takes only the metric names (metrics/names); the emitters are worker-side',
    allowTypeImports: true,
  },
  {
    group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity'],
    message: 'workflow code imports @temporalio/workflow only',
  },
];

/**
 * The definition's zod modules (definition, schema, cross-checks) may use the client's
 * request schemas: one validator for the CLI, the library and the validateDefinition local
 * activity, which is where the pipeline runs it, so they never enter the workflow bundle.
 * Response schemas (assumed-shapes, review) stay out.
 */
const DEFINITION_PATTERNS = SANDBOX_PATTERNS.map((p) =>
  p.regex?.includes('schemas')
    ? {
        ...p,
        regex:
          '(^|/)vendor-api(/(index|http|client|context|generation|erase|assets|review|raw|config|assumed-shapes|schemas(/(index|review|erase))?))?$',
      }
    : p,
);

/**
 * Dependencies point one way: src/'s layers (its folders and top-level files) and the layers
 * each may import are listed once, bottom first, in test/layout/layers.json (which
 * test/layout/dependencies.test.ts and the picture in docs/architecture.md read too). This
 * rule checks each relative import of src/ against that list: an arrow it does not list, an
 * import that leaves src/ (the tools, the tests), or a value import of a layer listed as
 * type-only (workflows see activities only through `import type`).
 */
const LAYERS = JSON.parse(readFileSync(new URL('./test/layout/layers.json', import.meta.url), 'utf8')).layers;
const SRC = path.join(import.meta.dirname, 'src');

/** The layer a path of src/ belongs to: its first folder, or the top-level file (`failures.ts`). */
function layerOf(file) {
  const top = path.relative(SRC, file).split(path.sep)[0];
  if (top === '..' || top.endsWith('.ts')) return top;
  return statSync(path.join(SRC, top), { throwIfNoEntry: false })?.isDirectory() ? top : `${top}.ts`;
}

const layersRule = {
  meta: { type: 'problem', docs: { description: 'imports follow test/layout/layers.json' }, schema: [] },
  create(context) {
    const from = layerOf(context.filename);
    const layer = LAYERS.find((l) => l.name === from);
    const check = (node, source, typeOnly) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = layerOf(path.resolve(path.dirname(context.filename), source));
      if (to === from) return;
      const report = (message) => context.report({ node, message });
      if (to === '..') return report('src/ ships alone: it imports nothing outside src/ (tools/, test/)');
      if (!layer) return report(`src/${from} is not in test/layout/layers.json`);
      if (!layer.imports.includes(to))
        return report(
          `${from} may import ${layer.imports.join(', ') || 'no layer'}, not ${to} (test/layout/layers.json)`,
        );
      if (layer.typeOnly?.includes(to) && !typeOnly)
        report(`${from} imports ${to} through \`import type\` only (test/layout/layers.json)`);
    };
    const typeOnly = (node) =>
      node.importKind === 'type' ||
      node.exportKind === 'type' ||
      (node.specifiers?.length > 0 && node.specifiers.every((s) => (s.importKind ?? s.exportKind) === 'type'));
    return {
      ImportDeclaration: (node) => check(node, node.source.value, typeOnly(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, typeOnly(node)),
      ExportAllDeclaration: (node) => check(node, node.source.value, typeOnly(node)),
      ImportExpression: (node) => check(node, node.source.value, false),
    };
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.cache/**',
      '.data/**',
      'reports/**',
      'archive/**',
      'scripts/**',
      '*.config.*',
    ],
  },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'tools/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      // `_name` marks a deliberately unused binding; `{ omitted: _, ...rest }` drops a key.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // A client connection's retry must not throw after close (src/config/temporal-connection.ts).
    files: ['src/**/*.ts', 'test/**/*.ts', 'tools/**/*.ts'],
    ignores: ['src/config/temporal-connection.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['connect', 'lazy'].map((property) => ({
          object: 'Connection',
          property,
          message:
            'use connectTemporal / lazyTemporal (src/config/temporal-connection.ts): their retries end cleanly after close',
        })),
      ],
    },
  },
  {
    // jest's asymmetric matchers (expect.any, expect.stringMatching, …) are typed `any`.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // These tests assert raw wire JSON (the emulator's HTTP answers, the CLI's --json output): untyped on purpose.
    files: ['test/emulator/**/*.ts', 'test/contract/**/*.ts', 'test/starters/**/*.ts', 'test/support/cli.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // String(credentials) is the point there: no way of stringifying them may show a secret.
    files: ['test/vendor-api/config.test.ts'],
    rules: { '@typescript-eslint/no-base-to-string': 'off' },
  },
  {
    // validateDefinition is synchronous work behind the async activity interface: async turns a throw into a rejection.
    files: ['src/activities/definition.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { reelflow: { rules: { layers: layersRule } } },
    rules: { 'reelflow/layers': 'error' },
  },
  {
    // Workflow code and the definition (the workflow bundles definition/refs and takes its
    // types): no I/O, no node built-ins, nothing that reaches outside the sandbox. The
    // stream-mechanisms bench's workflow is bundled too, so it is held to the same.
    files: ['src/workflows/**/*.ts', 'src/definition/**/*.ts', 'tools/bench/stream-mechanisms/workflow.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: SANDBOX_PATTERNS }],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'use sleep() from @temporalio/workflow' },
        { name: 'fetch', message: 'no I/O in workflow code' },
        { name: 'process', message: 'no environment in workflow code' },
      ],
    },
  },
  {
    files: ['src/definition/definition.ts', 'src/definition/schema.ts', 'src/definition/cross-checks.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: DEFINITION_PATTERNS }] },
  },
  {
    // Workflow modules also stay free of zod: module code runs again in every workflow
    // context. (video-pipeline.ts validates the definition in the validateDefinition local activity.)
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...SANDBOX_PATTERNS,
            {
              regex: '^zod$|(^|/)definition/(definition|schema|cross-checks)$',
              allowTypeImports: true,
              message:
                'zod schemas are evaluated in every workflow context: import from definition/refs, or validate in an activity as video-pipeline.ts does (validateDefinition)',
            },
          ],
        },
      ],
    },
  },
  {
    // The contract (src/contract) is what every side imports, the workflow bundle included:
    // sandbox-safe like workflow code and no zod. Which of reelflow it imports (pure modules
    // only; the definition's types) is the layers rule's (test/layout/layers.json).
    files: ['src/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [...SANDBOX_PATTERNS, { group: ['zod'], message: 'the contract is plain data: no zod' }],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'the contract runs in the workflow sandbox too' },
        { name: 'fetch', message: 'no I/O in the contract' },
        { name: 'process', message: 'no environment in the contract' },
      ],
    },
  },
  {
    // Activity types are imported for proxyActivities only; type imports are erased.
    files: ['src/workflows/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
);
