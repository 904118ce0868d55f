// Lint: what the type checker cannot see. Workflow code must stay deterministic and
// sandbox-safe (no I/O, no node built-ins, no HTTP client, no emulator); no promise may
// float unawaited anywhere (a lost rejection in an activity or CLI hides a failure).
// typescript-eslint's recommendedTypeChecked on top: `any` leaking into typed code, assertions
// the types already prove, detached methods, async without await. Exceptions below name their reason.
import tseslint from 'typescript-eslint';

/** What sandboxed workflow code (and the definition it validates) must never import. */
const SANDBOX_PATTERNS = [
  { group: ['node:*'], message: 'workflow code runs in the deterministic sandbox: no node built-ins' },
  {
    group: ['undici', 'fs', 'path', 'crypto', 'http', 'https', 'child_process', 'os', 'net'],
    message: 'no I/O in workflow code',
  },
  { regex: '(^|/)emulator(/|$)', message: 'workflows never import the emulator' },
  {
    regex:
      '(^|/)vendor-api(/(index|http|client|context|generation|erase|assets|review|raw|config|assumptions|schemas.*))?$',
    message:
      'import only the zod-free vendor modules (errors, batching, assumed-values): schemas are evaluated in every workflow context',
  },
  {
    regex: '(^|/)(activities|callbacks|workers|starters|devstack)(/|$)',
    message: 'workflow code imports no worker-side module (type-only imports excepted)',
    allowTypeImports: true,
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
 * The definition's zod modules may use the client's request schemas (one validator for the
 * door, the workflow and the client): the pipeline workflow loads them lazily, in its own
 * context only. Response schemas (assumptions, review) stay out.
 */
const DEFINITION_PATTERNS = SANDBOX_PATTERNS.map((p) =>
  p.regex?.includes('schemas')
    ? {
        ...p,
        regex:
          '(^|/)vendor-api(/(index|http|client|context|generation|erase|assets|review|raw|config|assumptions|schemas(/(index|review|erase))?))?$',
      }
    : p,
);

/** A no-restricted-imports pattern for imports of these src/ folders. */
const folders = (names, message) => ({ regex: `(^|/)(${names.join('|')})(/|$)`, message });
/** The same, reached from inside a sibling folder (`../name`): a folder's own files may share a name. */
const siblings = (names, message) => ({ regex: `(^|/)\\.\\./(${names.join('|')})(/|$)`, message });

/**
 * Dependencies point one way. Production code (the CLI, the library, the worker, the
 * receiver) never loads the dev stack or the emulator: they import it, never the reverse.
 */
const PRODUCTION_PATTERNS = [
  folders(['devstack', 'emulator'], 'production code imports neither the dev stack nor the emulator (they import it)'),
];
const LAYERS = [
  {
    // The standalone receiver runs without the worker: its own config, none of the worker's modules.
    files: ['src/callbacks/**/*.ts'],
    patterns: [
      ...PRODUCTION_PATTERNS,
      siblings(
        ['workers', 'starters'],
        'the callback receiver imports no worker or CLI module (its config is src/callbacks/config.ts)',
      ),
    ],
  },
  {
    // The vendor client is the bottom layer: the rest of reelflow (and the emulator) import it.
    files: ['src/vendor-api/**/*.ts'],
    patterns: [
      siblings(
        ['activities', 'workflows', 'workers', 'starters', 'callbacks', 'definition', 'devstack', 'emulator'],
        'the vendor client imports no other reelflow folder',
      ),
    ],
  },
  {
    // The emulator is the vendor: it shares the contract (vendor-api) and nothing of reelflow's workings.
    files: ['src/emulator/**/*.ts'],
    patterns: [
      siblings(
        ['activities', 'workflows', 'workers', 'starters', 'callbacks', 'definition', 'devstack'],
        'the emulator imports only the vendor contract (src/vendor-api)',
      ),
    ],
  },
];

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
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
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
    // jest's asymmetric matchers (expect.any, expect.stringMatching, …) are typed `any`.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // These tests assert raw wire JSON (the emulator's HTTP answers, the CLI's --json output): untyped on purpose.
    files: ['test/emulator/**/*.ts', 'test/contract/**/*.ts', 'test/starters/**/*.ts'],
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
    ignores: ['src/devstack/**', 'src/emulator/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: PRODUCTION_PATTERNS }] },
  },
  ...LAYERS.map(({ files, patterns }) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } })),
  {
    // Workflow code and the definition (which the workflow bundles): stricter still, and it
    // already excludes the emulator and the dev stack.
    files: ['src/workflows/**/*.ts', 'src/definition/**/*.ts'],
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
    files: ['src/definition/definition.ts', 'src/definition/cross-checks.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: DEFINITION_PATTERNS }] },
  },
  {
    // Workflow modules also stay free of zod: module code runs again in every workflow
    // context. (video-pipeline.ts loads the definition schema lazily, in its own context only.)
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...SANDBOX_PATTERNS,
            {
              regex: '^zod$|(^|/)definition/(definition|cross-checks)$',
              allowTypeImports: true,
              message:
                'zod schemas are evaluated in every workflow context: import from definition/refs, or require() lazily as video-pipeline.ts does',
            },
          ],
        },
      ],
    },
  },
  {
    // Activity types are imported for proxyActivities only; type imports are erased.
    files: ['src/workflows/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
);
