#!/usr/bin/env node
// Entry of every npm script. Plain Node with no dependencies, because it runs before
// anything is installed: it installs npm packages when the lock file changed, builds the
// product (src/ → dist/, incremental), then hands over to the command. Tools (tools/) run
// from their TypeScript through tsx; the processes they start run the product build.
// The Temporal CLI (and the real server's binaries) are found or built by tools/devstack
// when a command needs them. See docs/architecture.md ("What ships").
//
// Every child is awaited, never run blocking: SIGINT, SIGTERM and SIGHUP sent to this wrapper
// (`npm run dev-stack`, `npm run demo`, a supervisor stopping it) are passed on to the running
// child, and the wrapper exits only once the child has, with its code (128 + the signal's
// number when a signal ended it). A blocking spawnSync would die on SIGTERM and leave the dev
// server, the emulator or the worker running as orphans.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...args] = process.argv.slice(2);
const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file);

const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };

/**
 * A handler per signal that passes it on to `child`. One Ctrl-C may reach this process more than
 * once (from the terminal, npm and its shell): a repeat within a second is the same press, and
 * passing it on would read as a second one ("exit at once") in the child.
 */
function forwarder(child) {
  const last = {};
  const pass = (signal) => () => {
    if (Date.now() - (last[signal] ?? 0) < 1000) return;
    last[signal] = Date.now();
    child.kill(signal);
  };
  return Object.fromEntries(Object.keys(SIGNALS).map((s) => [s, pass(s)]));
}

/**
 * Runs a child to its end, passing on the signals this process gets; resolves to its exit code.
 * `detached`: the child gets a process group of its own, so a Ctrl-C in the terminal reaches it
 * once, through this wrapper, rather than from the terminal and again from here.
 */
function run(cmd, cmdArgs, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, cmdArgs, { cwd: root, stdio: 'inherit', ...opts });
    const forward = forwarder(child);
    for (const [signal, handler] of Object.entries(forward)) process.on(signal, handler);
    const done = () => {
      for (const [signal, handler] of Object.entries(forward)) process.off(signal, handler);
    };
    child.on('error', (err) => (done(), reject(err)));
    child.on('exit', (code, signal) => (done(), resolve(code ?? 128 + (SIGNALS[signal] ?? 0))));
  });
}
async function must(cmd, cmdArgs) {
  const code = await run(cmd, cmdArgs);
  if (code !== 0) process.exit(code);
}

async function ensureDependencies() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
  if (fresh) return;
  console.error('reelflow: installing npm packages (npm ci)…');
  await must('npm', ['ci', '--no-audit', '--no-fund']);
}

/** The product: src/ → dist/ (tsconfig.build.json), plus the emulator's sample media, which tsc does not copy. */
async function build() {
  await must(process.execPath, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.build.json']);
  cpSync(path.join(root, 'src/emulator/media'), path.join(root, 'dist/emulator/media'), { recursive: true });
}

/** Type-checks everything (src, test, tools) without emitting. */
async function typecheck() {
  await must(process.execPath, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json']);
}

async function product(script, scriptArgs) {
  process.exit(await run(process.execPath, [path.join(root, 'dist', script), ...scriptArgs], { detached: true }));
}
async function tool(script, scriptArgs) {
  const toolArgs = ['--import', 'tsx', path.join(root, 'tools', script), ...scriptArgs];
  process.exit(await run(process.execPath, toolArgs, { detached: true }));
}

const commands = {
  // The product build alone. --bundle: and the prebuilt workflow bundle; `prepare` runs both, so a
  // clone's `npm ci`, a git install and `npm pack` all yield the same dist/.
  build: async () => {
    await build();
    if (args.includes('--bundle')) await product('workers/build-bundle.js', []);
  },
  // Type-check, lint and check formatting of everything, then run the whole suite against a real Temporal dev server.
  test: async () => {
    await build();
    await typecheck();
    await must(process.execPath, [bin('eslint', 'bin/eslint.js'), '.']);
    await must(process.execPath, [bin('prettier', 'bin/prettier.cjs'), '--check', '--log-level', 'warn', '.']);
    process.exit(await run(process.execPath, [bin('jest', 'bin/jest.js'), ...args]));
  },
  // Re-record the committed histories the replay tests replay (after a deliberate workflow change).
  'record-histories': async () => {
    await build();
    process.exit(
      await run(process.execPath, [
        bin('jest', 'bin/jest.js'),
        '--testMatch',
        '<rootDir>/test/replay/record-histories.script.ts',
        ...args,
      ]),
    );
  },
  demo: async () => (await build(), await tool('devstack/demo.ts', args)),
  'dev-stack': async () => (await build(), await tool('devstack/main.ts', args)),
  // A real Temporal server on the local PostgreSQL (built and cached like the CLI), until Ctrl-C.
  cluster: async () => (await build(), await tool('devstack/cluster/main.ts', args)),
  // The end-to-end and chaos-quick suites against a real server that it starts and stops.
  'test:cluster': async () => (await build(), await tool('devstack/cluster/test-cluster.ts', args)),
  emulator: async () => (await build(), await product('emulator/main.js', args)),
  // The definition's JSON Schema into schema/ (commit it: a test compares it with the zod schema).
  schema: async () => (await build(), await tool('devstack/write-schema.ts', args)),
  worker: async () => (await build(), await product('workers/main.js', args)),
  bench: async () => (await build(), await tool('bench/bench.ts', args)),
  chaos: async () => (await build(), await tool('bench/chaos.ts', args)),
  // Web UI screenshots into docs/ (dev-only: needs /usr/bin/chromium).
  screenshots: async () => (await build(), await tool('devstack/web-ui-screenshots.ts', args)),
};

/**
 * The demo, the tests and the bench run on the Node CI runs them on (scripts/ensure-node.mjs,
 * the image's pinned Node 24), so a developer's figures are CI's. When this process is not on
 * it, the same command runs again under it, with its bin/ first on PATH (npm and every child
 * then use it too). REELFLOW_SYSTEM_NODE=1 keeps the machine's Node (docs/testing.md).
 */
const ON_PINNED_NODE = new Set(['test', 'test:cluster', 'record-histories', 'demo', 'dev-stack', 'bench', 'chaos']);

/** The pinned Node's bin/ folder (downloaded into .cache/ on first use), or undefined when it can't be had. */
function pinnedNodeBin() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'ensure-node.mjs')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', () => resolve(undefined));
    child.on('exit', (code) => resolve(code === 0 && out.trim() ? out.trim() : undefined));
  });
}

async function onPinnedNode() {
  if (!ON_PINNED_NODE.has(command) || process.env.REELFLOW_SYSTEM_NODE === '1') return;
  const binDir = await pinnedNodeBin();
  if (!binDir) {
    console.error(
      'reelflow: the pinned Node could not be had (above); running on this one. REELFLOW_SYSTEM_NODE=1 skips it.',
    );
    return;
  }
  if (path.dirname(process.execPath) === binDir) return;
  console.error(`reelflow: ${command} runs on the pinned Node ${binDir} (this is ${process.version})`);
  const env = { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}` };
  const self = fileURLToPath(import.meta.url);
  process.exit(await run(path.join(binDir, 'node'), [self, command, ...args], { env, detached: true }));
}

if (!commands[command]) {
  console.error(`usage: node scripts/run.mjs <${Object.keys(commands).join('|')}> [args…]`);
  process.exit(2);
}
await onPinnedNode();
// `build` runs as npm's `prepare` too, inside an install that already has the packages.
if (command !== 'build') await ensureDependencies();
await commands[command]();
