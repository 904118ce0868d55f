#!/bin/sh
# One-shot schema setup for docker-compose.yml's Temporal server, run in the
# temporalio/admin-tools image (it carries temporal-sql-tool and the schema files).
# Idempotent: `create` ignores an existing database, `setup-schema -v 0.0` only adds the
# version tables, `update-schema` applies the versions a database lacks. So it runs at
# every `docker compose up` and also upgrades the schema after an image bump.
# Connection settings come from SQL_PLUGIN, SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD.
set -eu

schema_dir=${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema}/postgresql/v12

for db in temporal:temporal temporal_visibility:visibility; do
  name=${db%%:*}
  dir=${db#*:}
  echo "reelflow: schema of database ${name}"
  temporal-sql-tool --db "${name}" create
  temporal-sql-tool --db "${name}" setup-schema -v 0.0
  temporal-sql-tool --db "${name}" update-schema -d "${schema_dir}/${dir}/versioned"
done
echo 'reelflow: PostgreSQL schema is up to date'
