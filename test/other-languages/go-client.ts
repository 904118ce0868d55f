/**
 * Builds the Go client in test/other-languages/go (Temporal's Go SDK, no reelflow code)
 * into the project cache, as the Temporal CLI is cached (tools/devstack/temporal-cli.ts):
 * `.cache/bin/reelflow-go-client-<hash of its sources>`, so an edit rebuilds and an
 * unchanged client is built once per machine. The first build fetches go.temporal.io/sdk
 * through the Go module proxy and compiles it: minutes, on a cold Go build cache.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from '../../tools/devstack/temporal-cli';

export const GO_CLIENT_DIR = path.join(__dirname, 'go');
const SOURCES = ['main.go', 'go.mod', 'go.sum'];

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return (env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name))
    .find((candidate) => existsSync(candidate));
}

/** A Go program of this repository: its folder and the name its cached binaries share. */
export interface GoProgram {
  dir: string;
  name: string;
}

const GO_CLIENT: GoProgram = { dir: GO_CLIENT_DIR, name: 'reelflow-go-client' };

/** The cached binary's path for the current sources (a go.sum only when the program has one). */
export function goClientPath(env: NodeJS.ProcessEnv = process.env, program: GoProgram = GO_CLIENT): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.filter((f) => existsSync(path.join(program.dir, f))))
    hash.update(file).update(readFileSync(path.join(program.dir, file)));
  return path.join(cacheDir(env), 'bin', `${program.name}-${hash.digest('hex').slice(0, 12)}`);
}

/**
 * The cached client, else `go build` (GOTOOLCHAIN=local: never downloads a toolchain).
 * Without Go it throws, naming what is missing: CI has Go, so a silent skip would hide
 * that the other-languages contract went untested.
 */
export async function buildGoClient(
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = () => undefined,
  program: GoProgram = GO_CLIENT,
): Promise<string> {
  const target = goClientPath(env, program);
  if (existsSync(target)) return target;
  const go = onPath('go', env);
  if (!go) {
    throw new Error(
      `the Go client test needs a Go toolchain (1.23 or later) on PATH to build ${program.dir}; ` +
        `none found on PATH=${env.PATH ?? ''}. Install Go (e.g. /usr/local/go/bin) and run again.`,
    );
  }
  mkdirSync(path.dirname(target), { recursive: true });
  const building = `${target}.build-${process.pid}`;
  const started = Date.now();
  try {
    await promisify(execFile)(go, ['build', '-trimpath', '-o', building, '.'], {
      cwd: program.dir,
      env: {
        ...env,
        GOTOOLCHAIN: 'local',
        GOFLAGS: [env.GOFLAGS, '-mod=readonly', '-buildvcs=false'].filter(Boolean).join(' '),
      },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (e) {
    const stderr = (e as { stderr?: string }).stderr ?? '';
    throw new Error(`go build in ${program.dir} failed: ${stderr.trim() || String(e)}`);
  }
  renameSync(building, target); // atomic: a concurrent run sees the whole binary or none
  // Builds of earlier sources are 25 MB each and never used again.
  for (const old of readdirSync(path.dirname(target))) {
    if (old.startsWith(`${program.name}-`) && /-[0-9a-f]{12}$/.test(old) && old !== path.basename(target))
      rmSync(path.join(path.dirname(target), old), { force: true });
  }
  log(`built ${target} in ${Math.round((Date.now() - started) / 1000)} s`);
  return target;
}
