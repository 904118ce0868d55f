// Lint: what the type checker cannot see. Workflow code must stay deterministic and
// sandbox-safe (no I/O, no node built-ins, no HTTP client, no emulator); no promise may
// float unawaited anywhere (a lost rejection in an activity or CLI hides a failure).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', '.data/**', 'reports/**', 'archive/**', 'scripts/**', '*.config.*'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/pipeline/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'workflow code runs in the deterministic sandbox: no node built-ins' },
            { group: ['undici', 'fs', 'path', 'crypto', 'http', 'https', 'child_process', 'os', 'net'], message: 'no I/O in workflow code' },
            { regex: '(^|/)emulator(/|$)', message: 'workflows never import the emulator' },
            {
              regex: '(^|/)vendor(/(index|http|client|context|generation|erase|assets|review|raw|config))?$',
              message: 'import only the pure vendor modules (errors, batching, assumptions, schemas)',
            },
            { regex: '(^|/)(activities|callbacks|workers|starters|devstack)(/|$)', message: 'workflow code imports no worker-side module (type-only imports excepted)', allowTypeImports: true },
            { group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity'], message: 'workflow code imports @temporalio/workflow only' },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'setTimeout', message: 'use sleep() from @temporalio/workflow' }, { name: 'fetch', message: 'no I/O in workflow code' }, { name: 'process', message: 'no environment in workflow code' }],
    },
  },
  {
    // Activity types are imported for proxyActivities only; type imports are erased.
    files: ['src/workflows/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
);
