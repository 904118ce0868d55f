/**
 * The server's config file: PostgreSQL (the postgres12 plugin) for persistence and SQL
 * visibility, N history shards, all four services in one process on loopback ports,
 * Prometheus metrics, and the dynamic config of deploy/. The database password is not
 * written: the file is a template that reads it from the server's environment.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { visibilityDatabase, type ClusterDatabase } from './postgres';
import { SQL_PLUGIN } from './schema';

export const PASSWORD_ENV = 'REELFLOW_CLUSTER_DB_PASSWORD';
/** The --env the server is started with: it reads <configDir>/<env>.yaml. */
export const CONFIG_ENV = 'reelflow';

export interface ServerPorts {
  frontend: number;
  /** The frontend's HTTP API (Nexus needs it; without it the server warns at every start). */
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  /** Membership (ringpop) ports, one per service. */
  membership: { frontend: number; history: number; matching: number; worker: number };
  metrics: number;
}

export interface ClusterConfig {
  ip: string;
  shards: number;
  ports: ServerPorts;
  db: ClusterDatabase;
  dynamicConfigFile: string;
  logLevel?: string;
}

/** A marker for a value written as is (a template expression). */
class Raw {
  constructor(readonly text: string) {}
}
type Yaml = string | number | boolean | Raw | { [key: string]: Yaml };

function toYaml(value: { [key: string]: Yaml }, indent = ''): string {
  return Object.entries(value)
    .map(([key, v]) => {
      if (v instanceof Raw) return `${indent}${key}: ${v.text}\n`;
      if (typeof v === 'object') return `${indent}${key}:\n${toYaml(v, `${indent}  `)}`;
      return `${indent}${key}: ${typeof v === 'string' ? JSON.stringify(v) : String(v)}\n`;
    })
    .join('');
}

function datastore(c: ClusterConfig, databaseName: string, maxConns: number): Yaml {
  return {
    sql: {
      pluginName: SQL_PLUGIN,
      databaseName,
      connectAddr: `${c.db.host}:${c.db.port}`,
      connectProtocol: 'tcp',
      user: c.db.user,
      password: new Raw(`{{ env "${PASSWORD_ENV}" | quote }}`),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

function service(c: ClusterConfig, name: keyof ServerPorts['membership'], extra: { [key: string]: Yaml } = {}): Yaml {
  return {
    rpc: { grpcPort: c.ports[name], membershipPort: c.ports.membership[name], bindOnLocalHost: true, ...extra },
  };
}

function renderConfig(c: ClusterConfig): string {
  const body: { [key: string]: Yaml } = {
    log: { stdout: true, level: c.logLevel ?? 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: c.shards,
      datastores: {
        'postgres-default': datastore(c, c.db.database, 20),
        'postgres-visibility': datastore(c, visibilityDatabase(c.db), 10),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: c.ip },
      metrics: {
        prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `${c.ip}:${c.ports.metrics}` },
      },
    },
    services: {
      frontend: service(c, 'frontend', { httpPort: c.ports.frontendHttp }),
      history: service(c, 'history'),
      matching: service(c, 'matching'),
      worker: service(c, 'worker'),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `${c.ip}:${c.ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: c.dynamicConfigFile, pollInterval: '10s' },
  };
  return `# enable-template (the password comes from $${PASSWORD_ENV})\n# Written by reelflow (tools/devstack/cluster/config.ts) at every start.\n${toYaml(body)}`;
}

/** Writes <configDir>/reelflow.yaml; the server reads it with --config <configDir> --env reelflow. */
export function writeConfig(configDir: string, c: ClusterConfig): string {
  mkdirSync(configDir, { recursive: true });
  const file = path.join(configDir, `${CONFIG_ENV}.yaml`);
  writeFileSync(file, renderConfig(c));
  return file;
}
