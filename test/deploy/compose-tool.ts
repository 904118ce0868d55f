/**
 * Offline validation of docker-compose.yml: Debian's `docker-compose` package (v1, no
 * engine needed for `config`) parses, validates and interpolates the file; its own
 * dependency python3-yaml turns the normalised output into JSON. Installed with apt-get
 * when missing; without apt the test fails and says so (never a silent skip).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureDebianCommand } from '../support/debian-package';

export const ROOT = path.resolve(__dirname, '../..');

/** Runs a command; throws with its stderr when it fails. */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): string {
  const res = spawnSync(cmd, args, { cwd: ROOT, env, input, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (res.error) throw res.error;
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${res.status}: ${res.stderr.trim()}`);
  return res.stdout;
}

/** Debian's docker-compose, installed when missing (test/support/debian-package.ts). */
export function ensureDockerCompose(): void {
  ensureDebianCommand('docker-compose');
}

/** The compose file's variables, so a value set in the caller's shell cannot hide a missing default. */
const COMPOSE_VARIABLES = /^(REELFLOW_|VENDOR_|EMULATOR_|TEMPORAL_|COMPOSE_)/;

export interface ComposeService {
  image?: string;
  build?: unknown;
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  restart?: string;
  profiles?: string[];
  stop_grace_period?: string;
}
export interface ComposeConfig {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/**
 * `docker-compose config` of the repository's file, as JSON, with none of its variables set but
 * `vars`, validated with `profiles` on. Compose v1 lists every service whatever the profiles:
 * `activeServices` picks those a profile starts.
 */
export function composeConfig(
  vars: Record<string, string> = {},
  profiles: string[] = [],
  /** An env file read as compose reads `.env` (`--env-file`). */
  envFile?: string,
): ComposeConfig {
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !COMPOSE_VARIABLES.test(k))),
    ...vars,
  };
  const args = [
    '--project-directory',
    ROOT,
    '-f',
    'docker-compose.yml',
    ...(envFile ? ['--env-file', envFile] : []),
    ...profiles.flatMap((p) => ['--profile', p]),
  ];
  const yaml = run('docker-compose', [...args, 'config'], env);
  const json = run(
    'python3',
    ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'],
    env,
    yaml,
  );
  return JSON.parse(json) as ComposeConfig;
}

/** The services `docker compose --profile …  up` starts: those without a profile, and those of an active one. */
export function activeServices(config: ComposeConfig, profiles: string[] = []): string[] {
  return Object.entries(config.services)
    .filter(([, s]) => !s.profiles?.length || s.profiles.some((p) => profiles.includes(p)))
    .map(([name]) => name);
}

/** What with-generated-secret supplies at first start: the secrets compose leaves empty. */
export const GENERATED_SECRETS = {
  REELFLOW_CALLBACK_SECRET: 'generated-at-first-start-0123456789',
  REELFLOW_ARCHIVE_TOKEN: 'generated-archive-token-0123456789',
};

/** A service's environment as its process sees it: nulls unset, the generated secrets filled in. */
export function startedEnv(service: ComposeService): Record<string, string | undefined> {
  const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, v ?? undefined]));
  for (const [k, v] of Object.entries(GENERATED_SECRETS)) if (k in env && !env[k]) env[k] = v;
  return env;
}
