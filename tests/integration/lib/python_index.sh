# Package index fixtures for the Python tests, on 127.0.0.1 only: tests/tools/index_server.py over a
# directory of wheels. Source after common.sh. Every server started here is stopped on exit (common.sh).
need python3; need curl


# start_index DIR [SERVER ARGS...]: serves DIR; sets INDEX_URL (the /simple/ root) and INDEX_BASE.
start_index() {
  local dir=$1 portfile
  shift
  portfile=$(mktemp "$WORK/index-port-XXXXXX")
  rm -f "$portfile"
  python3 "$ROCKPACK_SOURCE_DIR/tests/tools/index_server.py" --port 0 --port-file "$portfile" "$@" "$dir" \
    >>"$WORK/index-server.log" 2>&1 &
  track_pid $!
  local i
  for i in $(seq 1 100); do
    [ -s "$portfile" ] && break
    sleep 0.1
  done
  [ -s "$portfile" ] || fail "the index server did not start: $(tail -n 5 "$WORK/index-server.log")"
  INDEX_BASE="http://127.0.0.1:$(cat "$portfile")"
  INDEX_URL="$INDEX_BASE/simple/"
}

# index_file_requests BASE FILE: how many times FILE was requested from the server at BASE.
index_file_requests() {
  curl -fsS "$1/__stats" | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["requests"].get("/files/" + sys.argv[1], 0))' "$2"
}
