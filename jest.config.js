/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // *.cluster.test.ts need the real server's build and PostgreSQL: `npm run test:cluster` runs them.
  testPathIgnorePatterns: ['/node_modules/', '\\.cluster\\.test\\.ts$'],
  // One Temporal dev server for the whole run; each test uses its own task queue.
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  setupFiles: ['<rootDir>/test/setup/quiet-sdk.ts'],
  // Workflow tests start real workers and a real server: give them room on 2 cores.
  testTimeout: 120_000,
  maxWorkers: 2,
};
