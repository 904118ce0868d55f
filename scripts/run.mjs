#!/usr/bin/env node
// Entry of every npm script. Plain Node with no dependencies, because it runs before
// anything is installed: it installs npm packages when the lock file changed, compiles
// TypeScript (incremental, fast the second time), then hands over to the command.
// The Temporal CLI (and the real server's binaries) are found or built by src/devstack when
// a command needs them.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...args] = process.argv.slice(2);

function run(cmd, cmdArgs, opts = {}) {
  const res = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', ...opts });
  if (res.error) throw res.error;
  return res.status ?? 1;
}
function must(cmd, cmdArgs) {
  const code = run(cmd, cmdArgs);
  if (code !== 0) process.exit(code);
}

function ensureDependencies() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
  if (fresh) return;
  console.error('reelflow: installing npm packages (npm ci)…');
  must('npm', ['ci', '--no-audit', '--no-fund']);
}

function build() {
  must(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
}

function node(script, scriptArgs) {
  process.exit(run(process.execPath, [path.join(root, 'dist', script), ...scriptArgs]));
}

const commands = {
  // Type-check, lint and check formatting of everything, then run the whole suite against a real Temporal dev server.
  test: () => {
    build();
    must(process.execPath, [path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '.']);
    must(process.execPath, [
      path.join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'),
      '--check',
      '--log-level',
      'warn',
      '.',
    ]);
    process.exit(run(process.execPath, [path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'), ...args]));
  },
  // Re-record the committed histories the replay tests replay (after a deliberate workflow change).
  'record-histories': () => {
    build();
    process.exit(
      run(process.execPath, [
        path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--testMatch',
        '<rootDir>/test/replay/record-histories.script.ts',
        ...args,
      ]),
    );
  },
  demo: () => (build(), node('src/devstack/demo.js', args)),
  'dev-stack': () => (build(), node('src/devstack/main.js', args)),
  // A real Temporal server on the local PostgreSQL (built and cached like the CLI), until Ctrl-C.
  cluster: () => (build(), node('src/devstack/cluster/main.js', args)),
  // The end-to-end and chaos-quick suites against a real server that it starts and stops.
  'test:cluster': () => (build(), node('src/devstack/cluster/test-cluster.js', args)),
  emulator: () => (build(), node('src/emulator/main.js', args)),
  // The definition's JSON Schema into schema/ (commit it: a test compares it with the zod schema).
  schema: () => (build(), node('src/devstack/write-schema.js', args)),
  worker: () => (build(), node('src/workers/main.js', args)),
  bench: () => (build(), node('bench/bench.js', args)),
  chaos: () => (build(), node('bench/chaos.js', args)),
  // Web UI screenshots into docs/ (dev-only: needs /usr/bin/chromium).
  screenshots: () => (build(), node('src/devstack/web-ui-screenshots.js', args)),
};

if (!commands[command]) {
  console.error(`usage: node scripts/run.mjs <${Object.keys(commands).join('|')}> [args…]`);
  process.exit(2);
}
ensureDependencies();
commands[command]();
