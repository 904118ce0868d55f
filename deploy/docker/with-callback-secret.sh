#!/bin/sh
# Runs a command with REELFLOW_CALLBACK_SECRET set. When the environment gives none (the
# local compose by default), it uses a random secret made on first start and kept in
# REELFLOW_CALLBACK_SECRET_FILE (a volume), so callback URLs signed before a restart
# still verify after it. Never prints the secret.
set -eu

if [ -z "${REELFLOW_CALLBACK_SECRET:-}" ]; then
  file=${REELFLOW_CALLBACK_SECRET_FILE:-/var/lib/reelflow/callback-secret}
  if [ ! -s "${file}" ]; then
    umask 077
    node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("hex"))' >"${file}.tmp"
    mv "${file}.tmp" "${file}"
    echo "reelflow: generated a callback secret in ${file}" >&2
  fi
  REELFLOW_CALLBACK_SECRET=$(cat "${file}")
  export REELFLOW_CALLBACK_SECRET
fi
exec "$@"
