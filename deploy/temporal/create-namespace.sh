#!/bin/sh
# One-shot: creates the namespace reelflow uses on docker-compose.yml's Temporal server
# (the server image no longer does it, unlike the retired auto-setup image). Runs in the
# temporalio/admin-tools image after the server's healthcheck passed; idempotent.
set -eu

address=${TEMPORAL_ADDRESS:-temporal:7233}
namespace=${TEMPORAL_NAMESPACE:-default}
retention=${REELFLOW_NAMESPACE_RETENTION:-72h}

# The frontend can answer health before the namespace API is ready: a few tries.
tries=0
until temporal operator namespace describe --address "${address}" --namespace "${namespace}" >/dev/null 2>&1; do
  if temporal operator namespace create --address "${address}" --namespace "${namespace}" --retention "${retention}"; then
    echo "reelflow: namespace ${namespace} created (retention ${retention})"
    exit 0
  fi
  tries=$((tries + 1))
  if [ "${tries}" -ge 20 ]; then
    echo "reelflow: could not create namespace ${namespace} at ${address}" >&2
    exit 1
  fi
  sleep 3
done
echo "reelflow: namespace ${namespace} exists"
