/**
 * Finds a Temporal CLI binary (it carries the dev server): $TEMPORAL_CLI, then PATH,
 * then the project cache, else builds the pinned version from Go modules into the cache.
 * Returns undefined when none can be had, so callers may fall back to the SDK's own
 * download (machines with internet and no Go).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export interface FoundCli {
  path: string;
  source: 'env' | 'path' | 'cache' | 'built';
}

export function repoRoot(): string {
  // Works from src/devstack (ts) and dist/src/devstack (compiled).
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

export function findTemporalCli(
  log: (line: string) => void = (l) => console.error(l),
  env: NodeJS.ProcessEnv = process.env,
): FoundCli | undefined {
  if (env.TEMPORAL_CLI) {
    if (!existsSync(env.TEMPORAL_CLI)) throw new Error(`TEMPORAL_CLI points to a missing file: ${env.TEMPORAL_CLI}`);
    log(`temporal: using $TEMPORAL_CLI (${env.TEMPORAL_CLI})`);
    return { path: env.TEMPORAL_CLI, source: 'env' };
  }
  const fromPath = onPath('temporal', env);
  if (fromPath) {
    log(`temporal: using ${fromPath} from PATH`);
    return { path: fromPath, source: 'path' };
  }
  const binDir = path.join(cacheDir(env), 'bin');
  const cached = path.join(binDir, 'temporal');
  if (existsSync(cached)) {
    log(`temporal: using cached build ${cached}`);
    return { path: cached, source: 'cache' };
  }
  const go = onPath('go', env);
  if (!go) {
    log('temporal: no CLI on PATH, none cached, and no Go toolchain to build one');
    return undefined;
  }
  mkdirSync(binDir, { recursive: true });
  log(
    `temporal: building ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION} into ${binDir} ` +
      '(first run only; this may take several minutes)',
  );
  const build = spawnSync(go, ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
    env: { ...env, GOTOOLCHAIN: 'local', GOBIN: binDir, GOFLAGS: env.GOFLAGS ?? '-trimpath' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (build.status !== 0 || !existsSync(cached)) {
    throw new Error(
      `temporal: 'go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}' failed (exit ${build.status})`,
    );
  }
  log(`temporal: built ${cached}`);
  return { path: cached, source: 'built' };
}

export function cliVersion(cli: string): string {
  return execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim();
}
