#!/usr/bin/env bash
# Makes sure a FerretDB server (the MongoDB wire protocol, here on SQLite) runs on 127.0.0.1:27017
# for the MongoDB suites, and prints the variable to export. Idempotent: builds the binary only
# when missing, starts the server only when none answers.
#
#   eval "$(scripts/ensure-ferretdb.sh)"     # then: npm test  (the MongoDB suites run on it)
#   scripts/ensure-ferretdb.sh --stop        # stops the server this script started
#
# MongoDB itself cannot be installed on these machines (no package, no download); FerretDB 1.x is
# pure Go and is built from its pinned module. Two pitfalls (see STACK-NOTES): `go install
# ...@version` is refused by the module proxy's deprecation look-up, so the module is fetched with
# `go get` in a scratch module; and the binary panics at start unless `build/version/version.txt`
# exists, so the module is copied out of the read-only module cache, that file written, and
# `./cmd/ferretdb` built there. About 90 s on 2 cores from an empty cache; the 45 MB binary is
# kept in ~/go/bin/ferretdb-<version>.
#
# Environment (all optional):
#   FERRETDB_VERSION   module version (default: the pinned one below)
#   FERRETDB_BIN       use this binary instead of building one
#   FERRETDB_PORT      port on 127.0.0.1 (default 27017); the debug handler uses FERRETDB_PORT+1
#   FERRETDB_DIR       state directory: SQLite databases, state, log, pid (default /tmp/burrow-ferretdb)
#   FERRETDB_HANDLER   sqlite (default: needs no other server) or postgresql
#   FERRETDB_POSTGRESQL_URL   with the postgresql handler (default postgres://postgres@127.0.0.1:5432/ferretdb)
set -euo pipefail

PINNED_VERSION="v1.24.0"
VERSION="${FERRETDB_VERSION:-$PINNED_VERSION}"
PORT="${FERRETDB_PORT:-27017}"
DEBUG_PORT="$((PORT + 1))"
DIR="${FERRETDB_DIR:-/tmp/burrow-ferretdb}"
HANDLER="${FERRETDB_HANDLER:-sqlite}"
PG_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb}"
# The database part is a prefix: each service adds `-<service>` (see README "Configuration").
URL="mongodb://127.0.0.1:${PORT}/burrow"

log() { echo "ensure-ferretdb: $*" >&2; }
die() { log "$*"; exit 1; }

# FerretDB's debug handler answers /debug/livez once it serves the wire protocol.
alive() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:${DEBUG_PORT}/debug/livez" 2>/dev/null; }
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/${PORT}") 2>/dev/null; }

if [[ "${1:-}" == "--stop" ]]; then
  if [[ -f "$DIR/ferretdb.pid" ]] && kill -0 "$(cat "$DIR/ferretdb.pid")" 2>/dev/null; then
    pid="$(cat "$DIR/ferretdb.pid")"
    kill "$pid"
    # gone before this returns: a start right after must not find it still answering
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$DIR/ferretdb.pid"
    log "stopped"
  else
    log "no server started by this script is running"
  fi
  exit 0
fi

print_env() {
  echo "export MONGODB_URL=${URL}"
}

# 1. A server already answers: nothing to do.
if alive; then
  log "a FerretDB server already answers on 127.0.0.1:${PORT}"
  print_env
  exit 0
fi
if port_taken; then
  die "127.0.0.1:${PORT} is taken by something that is not a FerretDB started here; set FERRETDB_PORT"
fi

# 2. Find or build the binary.
export PATH="$PATH:/usr/local/go/bin"
GOBIN_DIR="${GOBIN:-${GOPATH:-$HOME/go}/bin}"
BIN="${FERRETDB_BIN:-$GOBIN_DIR/ferretdb-${VERSION}}"
if [[ ! -x "$BIN" ]]; then
  command -v go >/dev/null || die "no ferretdb binary and no Go toolchain (expected /usr/local/go/bin/go)"
  log "building github.com/FerretDB/FerretDB@${VERSION} with $(go version | cut -d' ' -f3) (about 90 s) ..."
  started=$(date +%s)
  scratch="$(mktemp -d)"
  trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
  (
    cd "$scratch"
    go mod init burrow-ferretdb-build >/dev/null 2>&1
    go get "github.com/FerretDB/FerretDB/cmd/ferretdb@${VERSION}" >&2
    src="$(go list -m -f '{{.Dir}}' "github.com/FerretDB/FerretDB")"
    cp -r "$src" "$scratch/src"
    chmod -R u+w "$scratch/src"
    echo "$VERSION" >"$scratch/src/build/version/version.txt"
    cd "$scratch/src"
    mkdir -p "$GOBIN_DIR"
    go build -o "$BIN.tmp" ./cmd/ferretdb >&2
    mv "$BIN.tmp" "$BIN"
  )
  log "built $BIN in $(( $(date +%s) - started )) s"
fi

# 3. Start it, detached, with its state under $DIR.
mkdir -p "$DIR/sqlite" "$DIR/state"
rm -f "$DIR/ferretdb.pid"
case "$HANDLER" in
  sqlite) handler_args=(--handler=sqlite "--sqlite-url=file:$DIR/sqlite/") ;;
  postgresql) handler_args=(--handler=postgresql "--postgresql-url=$PG_URL") ;;
  *) die "FERRETDB_HANDLER must be sqlite or postgresql" ;;
esac
# shellcheck source=server-log.sh
source "$(dirname "${BASH_SOURCE[0]}")/server-log.sh"
prepare_server_log "$DIR/ferretdb.log"
log "starting $BIN ($HANDLER) on 127.0.0.1:${PORT} (state in $DIR, log appended to $DIR/ferretdb.log)"
# (the shell records its own pid, then becomes the server: setsid may fork, so $! would be setsid's)
setsid nohup sh -c 'echo $$ >"$0"; exec "$@"' "$DIR/ferretdb.pid" \
  "$BIN" "${handler_args[@]}" --listen-addr="127.0.0.1:${PORT}" --debug-addr="127.0.0.1:${DEBUG_PORT}" \
  --state-dir="$DIR/state" --telemetry=disable --log-level=warn \
  >>"$DIR/ferretdb.log" 2>&1 </dev/null &
for _ in $(seq 1 50); do [[ -s "$DIR/ferretdb.pid" ]] && break; sleep 0.1; done

for _ in $(seq 1 100); do
  if alive && port_taken; then
    log "ready"
    print_env
    exit 0
  fi
  kill -0 "$(cat "$DIR/ferretdb.pid")" 2>/dev/null || { tail -20 "$DIR/ferretdb.log" >&2; die "ferretdb exited"; }
  sleep 0.2
done
tail -20 "$DIR/ferretdb.log" >&2
die "ferretdb did not become ready within 20 s"
