# Sourced by ensure-ferretdb.sh and ensure-minio.sh: the server's log survives a restart (the log
# of a crash is what an operator needs next), appended to and rotated instead of truncated.
#
#   prepare_server_log "$DIR/minio.log"    # then start the server with >>"$DIR/minio.log"
#
# A log over SERVER_LOG_MAX_BYTES (default 10 MiB) is moved to <log>.1 (replacing the previous
# one) before the start; each start is marked in the log with the time.
prepare_server_log() {
  local file="$1" max="${SERVER_LOG_MAX_BYTES:-10485760}"
  if [[ -f "$file" ]] && (( $(stat -c %s "$file") > max )); then
    mv -f "$file" "$file.1"
  fi
  printf -- '---- %s: starting (%s) ----\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(basename "$0")" >>"$file"
}
