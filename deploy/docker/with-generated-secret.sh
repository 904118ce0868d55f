#!/bin/sh
# with-generated-secret VARIABLE command…
# Runs the command with VARIABLE set. When the environment gives none (the local compose by
# default: no secret is ever a published default), it uses a random one made on first
# start and kept in the file that VARIABLE_FILE names (a volume for the callback secret,
# so callback URLs signed before a restart still verify after it). Never prints the value.
set -eu

var=${1:-}
case "${var}" in
  '' | *[!A-Z0-9_]*)
    echo "with-generated-secret: usage: with-generated-secret VARIABLE command…" >&2
    exit 2
    ;;
esac
shift

eval "value=\${${var}:-}"
if [ -z "${value}" ]; then
  eval "file=\${${var}_FILE:-}"
  if [ -z "${file}" ]; then
    echo "with-generated-secret: ${var} is not set and neither is ${var}_FILE (where to keep a generated one)" >&2
    exit 2
  fi
  if [ ! -s "${file}" ]; then
    umask 077
    node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("hex"))' >"${file}.tmp"
    mv "${file}.tmp" "${file}"
    echo "reelflow: generated ${var} in ${file}" >&2
  fi
  value=$(cat "${file}")
  export "${var}=${value}"
fi
exec "$@"
