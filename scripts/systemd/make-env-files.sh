#!/bin/sh
# Writes one env file per machine of a job YAML: OUT/<host-index>/<job>.env,
# ready to install as /etc/distgnn/<job>.env on that host.
#   scripts/systemd/make-env-files.sh JOB.yaml OUT_DIR [REMOTE_CONFIG_PATH]
# REMOTE_CONFIG_PATH: where the YAML lives on the hosts (default: the workspace
# copy `distgnn copy` makes, i.e. <workspace>/<file name>; else this path).
set -eu
yaml="$1"; out="$2"; remote="${3:-}"
distgnn config check "$yaml" >/dev/null  # refuse a bad config up front
job=$(sed -n 's/^job:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$yaml" | head -1)
machines=$(distgnn config check "$yaml" | grep -c '^\[[0-9]*/server/0\]')
m=0
while [ "$m" -lt "$machines" ]; do
  ws=$(distgnn config check "$yaml" | grep -A1 "^\[$m/server/0\]" | sed -n 's/^ *cwd: //p')
  cfg="${remote:-$ws/$(basename "$yaml")}"
  mkdir -p "$out/$m"
  umask 077
  { echo "DISTGNN_CONFIG=$cfg"; echo "DISTGNN_MACHINE=$m"; echo "DISTGNN_TOKEN=${DISTGNN_TOKEN:-}"; } > "$out/$m/$job.env"
  echo "machine $m: $out/$m/$job.env (DISTGNN_CONFIG=$cfg)"
  m=$((m + 1))
done
