/**
 * The cluster's role and databases on a PostgreSQL server, created idempotently with
 * psql as an administrator. psql reads the standard PG* variables itself (PGHOST,
 * PGPORT, PGUSER, PGPASSWORD, PGDATABASE); the defaults fit this machine: 127.0.0.1:5432,
 * user postgres, trust authentication.
 */
import { spawnSync } from 'node:child_process';

export interface ClusterDatabase {
  host: string;
  port: number;
  /** The role the server and the schema tool log in as (created if missing). */
  user: string;
  /** Its password, when the server's authentication needs one (never logged). */
  password?: string;
  /** The persistence database; visibility gets `<database>_visibility`. */
  database: string;
}

export function databaseFromEnv(env: NodeJS.ProcessEnv, database: string): ClusterDatabase {
  const port = Number(env.PGPORT ?? 5432);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`PGPORT is not a port: ${env.PGPORT}`);
  return {
    host: env.PGHOST ?? '127.0.0.1',
    port,
    user: identifier('REELFLOW_CLUSTER_DB_USER', env.REELFLOW_CLUSTER_DB_USER ?? 'reelflow_temporal'),
    password: env.REELFLOW_CLUSTER_DB_PASSWORD || undefined,
    database: identifier('database', database),
  };
}

export const visibilityDatabase = (db: ClusterDatabase): string => `${db.database}_visibility`;

/** Plain lower-case names only: they go into SQL unquoted. */
function identifier(what: string, name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,50}$/.test(name)) throw new Error(`${what}: '${name}' is not a plain lower-case SQL name`);
  return name;
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

const dropSql = (names: string[]) => names.map((n) => `DROP DATABASE IF EXISTS ${n} WITH (FORCE);`);

/** Creates the role and both databases when missing; `reset` drops the databases first. */
export function ensureDatabases(db: ClusterDatabase, opts: { reset?: boolean } = {}): void {
  const names = [db.database, visibilityDatabase(db)];
  const sql: string[] = opts.reset ? dropSql(names) : [];
  sql.push(
    `SELECT 'CREATE ROLE ${db.user} LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${literal(db.user)})\\gexec`,
  );
  if (db.password) sql.push(`ALTER ROLE ${db.user} PASSWORD ${literal(db.password)};`);
  for (const n of names) {
    sql.push(
      `SELECT 'CREATE DATABASE ${n} OWNER ${db.user}' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = ${literal(n)})\\gexec`,
    );
  }
  psql(db, sql.join('\n'));
}

/** Drops both databases (the role stays). */
export function dropDatabases(db: ClusterDatabase): void {
  psql(db, dropSql([db.database, visibilityDatabase(db)]).join('\n'));
}

/** Runs SQL as the administrator (PGUSER, default postgres), from stdin: no secret on argv. */
function psql(db: ClusterDatabase, sql: string): void {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PGHOST: db.host,
    PGPORT: String(db.port),
    PGUSER: process.env.PGUSER ?? 'postgres',
    PGDATABASE: process.env.PGDATABASE ?? 'postgres',
  };
  const res = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1'], { input: sql, env, encoding: 'utf8' });
  if (res.error) throw new Error(`psql could not run (${res.error.message}): install the PostgreSQL client`);
  if (res.status !== 0) {
    // psql may quote the failing statement; the role's password must not reach the message.
    const stderr = db.password ? res.stderr.split(db.password).join('***') : res.stderr;
    throw new Error(`psql as ${env.PGUSER} on ${db.host}:${db.port} failed: ${stderr.trim()}`);
  }
}
