/**
 * The real Temporal server's binaries, pinned to the server version the Temporal CLI
 * carries: `temporal-server` (go.temporal.io/server/cmd/server) and `temporal-sql-tool`
 * (cmd/tools/sql), found or built into the project cache like the CLI, and the
 * PostgreSQL schema files from the same module's source in the Go module cache.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findOrBuildGoBinary, type GoBinary } from '../temporal-cli';

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';

const SERVER: GoBinary = {
  label: 'temporal-server',
  module: `${SERVER_MODULE}/cmd/server`,
  version: TEMPORAL_SERVER_VERSION,
  installName: 'server',
  // The version is in the name: a pin bump builds afresh instead of reusing an old server.
  cachedName: `temporal-server-${TEMPORAL_SERVER_VERSION}`,
  envVar: 'TEMPORAL_SERVER_BIN',
};

const SQL_TOOL: GoBinary = {
  label: 'temporal-sql-tool',
  module: `${SERVER_MODULE}/cmd/tools/sql`,
  version: TEMPORAL_SERVER_VERSION,
  installName: 'sql',
  cachedName: `temporal-sql-tool-${TEMPORAL_SERVER_VERSION}`,
  envVar: 'TEMPORAL_SQL_TOOL_BIN',
};

export interface ClusterBinaries {
  server: string;
  sqlTool: string;
  /** schema/postgresql/v12 of the server module: temporal/ and visibility/, each with versioned/. */
  schemaDir: string;
}

export function findClusterBinaries(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): ClusterBinaries {
  const need = (bin: GoBinary) => {
    const found = findOrBuildGoBinary(bin, log, env);
    if (!found) throw new Error(`${bin.label}: set ${bin.envVar} or install Go to build ${bin.module}@${bin.version}`);
    return found.path;
  };
  return { server: need(SERVER), sqlTool: need(SQL_TOOL), schemaDir: postgresSchemaDir(env) };
}

/** $TEMPORAL_SCHEMA_DIR, else the module's source (`go mod download` is a no-op once cached). */
function postgresSchemaDir(env: NodeJS.ProcessEnv): string {
  const dir = env.TEMPORAL_SCHEMA_DIR ?? path.join(moduleDir(env), 'schema', 'postgresql', 'v12');
  if (!existsSync(path.join(dir, 'temporal', 'versioned'))) {
    throw new Error(`no Temporal PostgreSQL schema in ${dir} (expected temporal/versioned and visibility/versioned)`);
  }
  return dir;
}

function moduleDir(env: NodeJS.ProcessEnv): string {
  const target = `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`;
  let out: string;
  try {
    out = execFileSync('go', ['mod', 'download', '-json', target], {
      env: { ...env, GOTOOLCHAIN: 'local' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    throw new Error(`'go mod download ${target}' failed (set TEMPORAL_SCHEMA_DIR instead): ${String(err)}`);
  }
  const dir = (JSON.parse(out) as { Dir?: string }).Dir;
  if (!dir) throw new Error(`'go mod download ${target}' named no source folder`);
  return dir;
}
