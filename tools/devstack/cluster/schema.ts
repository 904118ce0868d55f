/**
 * Sets up or updates both schemas with temporal-sql-tool, idempotently: `setup-schema -v
 * 0.0` only creates the version tables when missing, and `update-schema` applies the
 * versioned steps the database lacks (none on a second run).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { visibilityDatabase, type ClusterDatabase } from './postgres';

export const SQL_PLUGIN = 'postgres12';

export function applySchemas(sqlTool: string, schemaDir: string, db: ClusterDatabase): void {
  const stores: Array<[string, string]> = [
    [db.database, 'temporal'],
    [visibilityDatabase(db), 'visibility'],
  ];
  for (const [database, store] of stores) {
    sqlToolRun(sqlTool, db, database, ['setup-schema', '-v', '0.0']);
    sqlToolRun(sqlTool, db, database, ['update-schema', '-d', path.join(schemaDir, store, 'versioned')]);
  }
}

function sqlToolRun(sqlTool: string, db: ClusterDatabase, database: string, args: string[]): void {
  // Connection settings through the tool's own SQL_* variables: the password stays off argv.
  const env = {
    ...process.env,
    SQL_PLUGIN,
    SQL_HOST: db.host,
    SQL_PORT: String(db.port),
    SQL_USER: db.user,
    SQL_PASSWORD: db.password ?? '',
    SQL_DATABASE: database,
  };
  const res = spawnSync(sqlTool, args, { env, encoding: 'utf8' });
  if (res.error) throw new Error(`temporal-sql-tool could not run: ${res.error.message}`);
  if (res.status !== 0) {
    const tail = `${res.stdout}\n${res.stderr}`.trim().split('\n').slice(-5).join('\n');
    const out = db.password ? tail.split(db.password).join('***') : tail;
    throw new Error(`temporal-sql-tool ${args[0]} on ${database} failed (exit ${res.status}):\n${out}`);
  }
}
