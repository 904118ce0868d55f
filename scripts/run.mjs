#!/usr/bin/env node
// Entry of every npm script. Plain Node with no dependencies, because it runs before
// anything is installed: it installs npm packages when the lock file changed, builds the
// product (src/ → dist/, incremental), then hands over to the command. Tools (tools/) run
// from their TypeScript through tsx; the processes they start run the product build.
// The Temporal CLI (and the real server's binaries) are found or built by tools/devstack
// when a command needs them. See docs/architecture.md ("What ships").
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...args] = process.argv.slice(2);
const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file);

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

/** The product: src/ → dist/ (tsconfig.build.json), plus the emulator's sample media, which tsc does not copy. */
function build() {
  must(process.execPath, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.build.json']);
  cpSync(path.join(root, 'src/emulator/media'), path.join(root, 'dist/emulator/media'), { recursive: true });
}

/** Type-checks everything (src, test, tools) without emitting. */
function typecheck() {
  must(process.execPath, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json']);
}

function product(script, scriptArgs) {
  process.exit(run(process.execPath, [path.join(root, 'dist', script), ...scriptArgs]));
}
function tool(script, scriptArgs) {
  process.exit(run(process.execPath, ['--import', 'tsx', path.join(root, 'tools', script), ...scriptArgs]));
}

const commands = {
  // The product build alone. --bundle: and the prebuilt workflow bundle; `prepare` runs both, so a
  // clone's `npm ci`, a git install and `npm pack` all yield the same dist/.
  build: () => {
    build();
    if (args.includes('--bundle')) product('workers/build-bundle.js', []);
  },
  // Type-check, lint and check formatting of everything, then run the whole suite against a real Temporal dev server.
  test: () => {
    build();
    typecheck();
    must(process.execPath, [bin('eslint', 'bin/eslint.js'), '.']);
    must(process.execPath, [bin('prettier', 'bin/prettier.cjs'), '--check', '--log-level', 'warn', '.']);
    process.exit(run(process.execPath, [bin('jest', 'bin/jest.js'), ...args]));
  },
  // Re-record the committed histories the replay tests replay (after a deliberate workflow change).
  'record-histories': () => {
    build();
    process.exit(
      run(process.execPath, [
        bin('jest', 'bin/jest.js'),
        '--testMatch',
        '<rootDir>/test/replay/record-histories.script.ts',
        ...args,
      ]),
    );
  },
  demo: () => (build(), tool('devstack/demo.ts', args)),
  'dev-stack': () => (build(), tool('devstack/main.ts', args)),
  // A real Temporal server on the local PostgreSQL (built and cached like the CLI), until Ctrl-C.
  cluster: () => (build(), tool('devstack/cluster/main.ts', args)),
  // The end-to-end and chaos-quick suites against a real server that it starts and stops.
  'test:cluster': () => (build(), tool('devstack/cluster/test-cluster.ts', args)),
  emulator: () => (build(), product('emulator/main.js', args)),
  // The definition's JSON Schema into schema/ (commit it: a test compares it with the zod schema).
  schema: () => (build(), tool('devstack/write-schema.ts', args)),
  worker: () => (build(), product('workers/main.js', args)),
  bench: () => (build(), tool('bench/bench.ts', args)),
  chaos: () => (build(), tool('bench/chaos.ts', args)),
  // Web UI screenshots into docs/ (dev-only: needs /usr/bin/chromium).
  screenshots: () => (build(), tool('devstack/web-ui-screenshots.ts', args)),
};

if (!commands[command]) {
  console.error(`usage: node scripts/run.mjs <${Object.keys(commands).join('|')}> [args…]`);
  process.exit(2);
}
// `build` runs as npm's `prepare` too, inside an install that already has the packages.
if (command !== 'build') ensureDependencies();
commands[command]();
