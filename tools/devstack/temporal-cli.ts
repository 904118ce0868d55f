/**
 * Finds a Temporal CLI binary (it carries the dev server): $TEMPORAL_CLI, then PATH,
 * then the project cache, else builds the pinned version from Go modules into the cache.
 * The same find-or-build serves the real server's binaries (tools/devstack/cluster).
 * Returns undefined when none can be had, so callers may fall back to the SDK's own
 * download (machines with internet and no Go).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export interface FoundCli {
  path: string;
  source: 'env' | 'path' | 'cache' | 'built';
}

export function repoRoot(): string {
  // Works from tools/devstack (ts) and dist/devstack (compiled).
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`reelflow: no package.json above ${__dirname}`);
    dir = up;
  }
  return dir;
}

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REELFLOW_CACHE_DIR ? path.resolve(env.REELFLOW_CACHE_DIR) : path.join(repoRoot(), '.cache');
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** A Go-built binary reelflow pins: where to look for it and how to build it. */
export interface GoBinary {
  /** Shown in log lines and errors. */
  label: string;
  /** Go package path, installed at `version`. */
  module: string;
  version: string;
  /** The name `go install` gives it (the package's last path element). */
  installName: string;
  /** Its name in the cache's bin/ folder. */
  cachedName: string;
  /** An environment variable that points at a binary to use instead. */
  envVar: string;
  /** Look for `installName` on PATH too (off for binaries whose version must match). */
  searchPath?: boolean;
}

/**
 * $envVar, then PATH (when allowed), then the project cache, else `go install` into the
 * cache (GOTOOLCHAIN=local: never downloads a toolchain). Undefined when there is no Go.
 */
export function findOrBuildGoBinary(
  bin: GoBinary,
  log: (line: string) => void = (l) => console.error(l),
  env: NodeJS.ProcessEnv = process.env,
): FoundCli | undefined {
  const fromEnv = env[bin.envVar];
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`${bin.envVar} points to a missing file: ${fromEnv}`);
    log(`${bin.label}: using $${bin.envVar} (${fromEnv})`);
    return { path: fromEnv, source: 'env' };
  }
  const fromPath = bin.searchPath ? onPath(bin.installName, env) : undefined;
  if (fromPath) {
    log(`${bin.label}: using ${fromPath} from PATH`);
    return { path: fromPath, source: 'path' };
  }
  const binDir = path.join(cacheDir(env), 'bin');
  const cached = path.join(binDir, bin.cachedName);
  if (existsSync(cached)) {
    log(`${bin.label}: using cached build ${cached}`);
    return { path: cached, source: 'cache' };
  }
  const go = onPath('go', env);
  if (!go) {
    const where = bin.searchPath ? 'not on PATH, none cached' : 'none cached';
    log(`${bin.label}: no $${bin.envVar}, ${where}, and no Go toolchain to build one`);
    return undefined;
  }
  goInstall(go, bin, binDir, env, log);
  return { path: cached, source: 'built' };
}

function goInstall(go: string, bin: GoBinary, binDir: string, env: NodeJS.ProcessEnv, log: (line: string) => void) {
  // Built into a folder of its own, then renamed: `server` and `sql` are too generic for bin/.
  const gobin = path.join(binDir, `.build-${bin.cachedName}`);
  mkdirSync(gobin, { recursive: true });
  const target = `${bin.module}@${bin.version}`;
  log(`${bin.label}: building ${target} into ${binDir} (first run only; this may take several minutes)`);
  const build = spawnSync(go, ['install', target], {
    env: { ...env, GOTOOLCHAIN: 'local', GOBIN: gobin, GOFLAGS: env.GOFLAGS ?? '-trimpath' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const built = path.join(gobin, bin.installName);
  if (build.status !== 0 || !existsSync(built)) {
    throw new Error(`${bin.label}: 'go install ${target}' failed (exit ${build.status})`);
  }
  renameSync(built, path.join(binDir, bin.cachedName));
  rmSync(gobin, { recursive: true, force: true });
  log(`${bin.label}: built ${path.join(binDir, bin.cachedName)}`);
}

const TEMPORAL_CLI_BINARY: GoBinary = {
  label: 'temporal',
  module: TEMPORAL_CLI_MODULE,
  version: TEMPORAL_CLI_VERSION,
  installName: 'temporal',
  cachedName: 'temporal',
  envVar: 'TEMPORAL_CLI',
  searchPath: true,
};

export function findTemporalCli(
  log: (line: string) => void = (l) => console.error(l),
  env: NodeJS.ProcessEnv = process.env,
): FoundCli | undefined {
  return findOrBuildGoBinary(TEMPORAL_CLI_BINARY, log, env);
}

export function cliVersion(cli: string): string {
  return execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim();
}
