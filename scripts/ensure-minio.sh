#!/usr/bin/env bash
# Makes sure a MinIO server runs on 127.0.0.1:9000 for the MinIO suites, and prints the variables
# to export. Idempotent: installs the binary only when missing, starts the server only when none
# answers.
#
#   eval "$(scripts/ensure-minio.sh)"     # then: npm test  (the MinIO contract suite runs)
#   scripts/ensure-minio.sh --stop        # stops the server this script started
#
# MinIO is not packaged for Debian or npm; it is built from source with `go install` (MinIO's
# documented source install). Measured on a 2-core machine with Go 1.26: about 3.5 minutes and
# 1.5 GB of memory from an empty module cache; seconds once built. The version is pinned (it is what
# `@latest` resolved to on 2026-11-21, and builds with Go 1.26) so every machine runs the same code.
#
# Environment (all optional):
#   MINIO_VERSION      module version to install (default: the pinned one below)
#   MINIO_BIN          use this binary instead of installing one
#   MINIO_PORT         port on 127.0.0.1 (default 9000); the console uses MINIO_PORT+1
#   MINIO_DIR          state directory: data, log, pid (default /tmp/burrow-minio)
#   MINIO_ACCESS_KEY / MINIO_SECRET_KEY   root credentials (default burrow / burrow-secret-key;
#                      test-only values, never for a real deployment)
#   MINIO_BUCKET       bucket name printed for the tests (default burrow-test)
set -euo pipefail

PINNED_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
VERSION="${MINIO_VERSION:-$PINNED_VERSION}"
PORT="${MINIO_PORT:-9000}"
CONSOLE_PORT="$((PORT + 1))"
DIR="${MINIO_DIR:-/tmp/burrow-minio}"
ACCESS_KEY="${MINIO_ACCESS_KEY:-burrow}"
SECRET_KEY="${MINIO_SECRET_KEY:-burrow-secret-key}"
BUCKET="${MINIO_BUCKET:-burrow-test}"
URL="http://127.0.0.1:${PORT}"

log() { echo "ensure-minio: $*" >&2; }
die() { log "$*"; exit 1; }

alive() { curl -fsS -o /dev/null --max-time 2 "${URL}/minio/health/live" 2>/dev/null; }
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/${PORT}") 2>/dev/null; }

if [[ "${1:-}" == "--stop" ]]; then
  if [[ -f "$DIR/minio.pid" ]] && kill -0 "$(cat "$DIR/minio.pid")" 2>/dev/null; then
    pid="$(cat "$DIR/minio.pid")"
    kill "$pid"
    # gone before this returns: a start right after must not find it still answering
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$DIR/minio.pid"
    log "stopped"
  else
    log "no server started by this script is running"
  fi
  exit 0
fi

print_env() {
  cat <<EOF
export MINIO_URL=${URL}
export MINIO_ACCESS_KEY=${ACCESS_KEY}
export MINIO_SECRET_KEY=${SECRET_KEY}
export MINIO_BUCKET=${BUCKET}
EOF
}

# 1. A server already answers: nothing to do (credentials must match the ones printed).
if alive; then
  log "a MinIO server already answers on ${URL}"
  print_env
  exit 0
fi
if port_taken; then
  die "127.0.0.1:${PORT} is taken by something that is not a live MinIO server; set MINIO_PORT"
fi

# 2. Find or install the binary.
export PATH="$PATH:/usr/local/go/bin:${GOBIN:-${GOPATH:-$HOME/go}/bin}"
BIN="${MINIO_BIN:-}"
if [[ -z "$BIN" ]]; then
  BIN="$(command -v minio || true)"
fi
if [[ -z "$BIN" ]]; then
  command -v go >/dev/null || die "no minio binary and no Go toolchain (expected /usr/local/go/bin/go)"
  log "building github.com/minio/minio@${VERSION} with $(go version | cut -d' ' -f3) (takes minutes) ..."
  started=$(date +%s)
  go install "github.com/minio/minio@${VERSION}" >&2
  log "built in $(( $(date +%s) - started )) s"
  BIN="$(command -v minio)" || die "go install finished but no minio binary is on PATH"
fi

# 3. Start it, detached, with its state under $DIR.
mkdir -p "$DIR/data"
# shellcheck source=server-log.sh
source "$(dirname "${BASH_SOURCE[0]}")/server-log.sh"
prepare_server_log "$DIR/minio.log"
log "starting $BIN on ${URL} (data in $DIR/data, log appended to $DIR/minio.log)"
MINIO_ROOT_USER="$ACCESS_KEY" MINIO_ROOT_PASSWORD="$SECRET_KEY" MINIO_BROWSER=off \
  setsid nohup "$BIN" server "$DIR/data" --address "127.0.0.1:${PORT}" --console-address "127.0.0.1:${CONSOLE_PORT}" \
  >>"$DIR/minio.log" 2>&1 </dev/null &
echo $! >"$DIR/minio.pid"

for _ in $(seq 1 100); do
  if alive; then
    log "ready"
    print_env
    exit 0
  fi
  kill -0 "$(cat "$DIR/minio.pid")" 2>/dev/null || { tail -20 "$DIR/minio.log" >&2; die "minio exited"; }
  sleep 0.2
done
tail -20 "$DIR/minio.log" >&2
die "minio did not become ready within 20 s"
