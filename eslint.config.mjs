// Lint: what the type checker cannot see. Workflow code must stay deterministic and
// sandbox-safe (no I/O, no node built-ins, no HTTP client, no emulator); no promise may
// float unawaited anywhere (a lost rejection in an activity or CLI hides a failure).
// typescript-eslint's recommendedTypeChecked on top: `any` leaking into typed code, assertions
// the types already prove, detached methods, async without await. Exceptions below name their reason.
import tseslint from 'typescript-eslint';

/** What sandboxed workflow code (and src/definition, whose refs and types it takes) must never import. */
const SANDBOX_PATTERNS = [
  { group: ['node:*'], message: 'workflow code runs in the deterministic sandbox: no node built-ins' },
  {
    group: ['undici', 'fs', 'path', 'crypto', 'http', 'https', 'child_process', 'os', 'net'],
    message: 'no I/O in workflow code',
  },
  { regex: '(^|/)emulator(/|$)', message: 'workflows never import the emulator' },
  {
    regex:
      '(^|/)vendor-api(/(index|http|client|context|generation|erase|assets|review|raw|config|assumed-shapes|schemas.*))?$',
    message:
      'import only the zod-free vendor modules (errors, batching, documented-values, assumed-values): schemas are evaluated in every workflow context',
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

/** A no-restricted-imports pattern for imports of these src/ folders. */
const folders = (names, message) => ({ regex: `(^|/)(${names.join('|')})(/|$)`, message });
/** The same, reached from inside a sibling folder (`../name`): a folder's own files may share a name. */
const siblings = (names, message) => ({ regex: `(^|/)\\.\\./(${names.join('|')})(/|$)`, message });

/**
 * Dependencies point one way. Production code (the CLI, the library, the worker, the
 * receiver) never loads the dev stack or the emulator: they import it, never the reverse.
 */
const PRODUCTION_PATTERNS = [
  folders(
    ['tools', 'devstack', 'emulator'],
    'production code imports neither the tools (dev stack, bench) nor the emulator (they import it)',
  ),
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
      siblings(['workflows'], 'the receiver reads a pipeline through src/contract, not the workflows'),
    ],
  },
  {
    // Activities share the workflow's messages and carried state through src/contract, never the workflow's own code.
    files: ['src/activities/**/*.ts'],
    patterns: [
      ...PRODUCTION_PATTERNS,
      siblings(
        ['workflows', 'workers', 'starters', 'callbacks'],
        'activities import the contract (src/contract), not the workflows, the worker, the CLI or the receiver',
      ),
    ],
  },
  {
    // Every side reads a pipeline through src/contract: the workflow's own lib/ stays private to it.
    files: ['src/starters/**/*.ts', 'src/metrics/**/*.ts', 'src/codec/**/*.ts', 'src/webhooks/**/*.ts'],
    patterns: [
      ...PRODUCTION_PATTERNS,
      siblings(
        ['workflows'],
        'import the messages, search attributes and helpers from src/contract, not from the workflows',
      ),
    ],
  },
  {
    // The environment toolkit is the bottom of every process's config: it imports no feature folder.
    files: ['src/config/**/*.ts'],
    patterns: [
      ...PRODUCTION_PATTERNS,
      siblings(
        ['activities', 'workflows', 'workers', 'starters', 'callbacks', 'codec', 'webhooks', 'contract', 'definition'],
        'src/config is the shared env toolkit: it imports no feature folder',
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
    ignores: ['src/emulator/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: PRODUCTION_PATTERNS }] },
  },
  ...LAYERS.map(({ files, patterns }) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } })),
  {
    // Workflow code and the definition (the workflow bundles definition/refs): stricter still, and it
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
    // sandbox-safe like workflow code, no zod, and of reelflow only other pure modules
    // (src/failures.ts, the zod-free vendor values; the definition's types only).
    files: ['src/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...SANDBOX_PATTERNS,
            { group: ['zod'], message: 'the contract is plain data: no zod' },
            {
              regex: '(^|/)definition(/|$)',
              allowTypeImports: true,
              message: "the contract takes the definition's types only",
            },
            siblings(
              [
                'activities',
                'workflows',
                'workers',
                'starters',
                'callbacks',
                'codec',
                'webhooks',
                'metrics',
                'telemetry',
                'config',
              ],
              'the contract imports nothing of reelflow but pure modules (src/failures.ts, zod-free vendor values)',
            ),
          ],
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
