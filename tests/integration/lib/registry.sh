# Registry fixtures for the integration tests, on 127.0.0.1 only: Debian's docker-registry with an
# anonymous, htpasswd or token-auth config, the tests' token server, the fault-injecting proxy, and
# test images. Source after common.sh. Every process started here is stopped on exit (common.sh).
TOOLS="$ROCKPACK_SOURCE_DIR/tests/tools"
need docker-registry; need python3; need curl


free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Waits until something answers HTTP on URL (any status).
wait_http() {
  local url=$1 i
  for i in $(seq 1 100); do
    curl -s -o /dev/null "$url" && return 0
    sleep 0.1
  done
  fail "nothing answers on $url"
}

# start_registry NAME [AUTH_YAML]: starts docker-registry with storage in $WORK/NAME; sets REG (host:port).
start_registry() {
  local name=$1 auth=${2:-} port
  port=$(free_port)
  mkdir -p "$WORK/$name"
  cat > "$WORK/$name/config.yml" <<YAML
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $WORK/$name/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
  secret: rockpack-test-secret
$auth
YAML
  docker-registry serve "$WORK/$name/config.yml" > "$WORK/$name/registry.log" 2>&1 &
  track_pid $!
  wait_http "http://127.0.0.1:$port/v2/"
  REG="127.0.0.1:$port"
}

# htpasswd_auth USER PASS: the auth section for a Basic-auth registry.
htpasswd_auth() {
  need htpasswd
  htpasswd -Bbn "$1" "$2" > "$WORK/htpasswd"
  printf 'auth:\n  htpasswd:\n    realm: rockpack-test\n    path: %s\n' "$WORK/htpasswd"
}

# start_token_server [ARGS...]: key + self-signed cert, token server; sets TOKEN_PORT and prints
# nothing. TOKEN_AUTH holds the registry's auth section. Requests are logged to $WORK/token.log.
start_token_server() {
  need openssl
  TOKEN_PORT=$(free_port)
  # Each server its own key (servers run side by side); the request log is shared.
  local key="$WORK/token-$TOKEN_PORT.key" crt="$WORK/token-$TOKEN_PORT.crt"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=rockpack-test-token" \
    -keyout "$key" -out "$crt" >/dev/null 2>&1 || fail "openssl could not make a key"
  python3 "$TOOLS/token_server.py" --port "$TOKEN_PORT" --key "$key" --cert "$crt" \
    --log "$WORK/token.log" "$@" > "$WORK/token_server-$TOKEN_PORT.out" 2>&1 &
  track_pid $!
  wait_http "http://127.0.0.1:$TOKEN_PORT/token"
  : > "$WORK/token.log"
  TOKEN_AUTH=$(printf 'auth:\n  token:\n    realm: http://127.0.0.1:%s/token\n    service: rockpack-test-registry\n    issuer: rptest-issuer\n    rootcertbundle: %s\n' \
    "$TOKEN_PORT" "$crt")
}

# start_fault_proxy UPSTREAM_HOSTPORT [ARGS...]: sets PROXY (host:port); faults logged to $WORK/faults.log.
start_fault_proxy() {
  local upstream_port=${1##*:} port
  shift
  port=$(free_port)
  : > "$WORK/faults.log"
  python3 "$TOOLS/fault_proxy.py" --port "$port" --upstream-port "$upstream_port" --log "$WORK/faults.log" "$@" \
    > "$WORK/proxy.out" 2>&1 &
  track_pid $!
  wait_http "http://127.0.0.1:$port/v2/"
  PROXY="127.0.0.1:$port"
}

# make_image DIR:TAG LAYERS MIB [LABEL]: builds an OCI layout with LAYERS layers of random data,
# MIB MiB each (incompressible, so the blobs are that big). Prints the manifest digest.
make_image() {
  local dest=$1 layers=$2 mib=$3 label=${4:-test} i src
  src="$WORK/imgsrc-$RANDOM"
  mkdir -p "$src"
  {
    echo "name: regtest"
    echo "files:"
    for i in $(seq 1 "$layers"); do
      mkdir -p "$src/l$i"
      head -c "$((mib * 1024 * 1024))" /dev/urandom > "$src/l$i/data.bin"
      printf '  - src: %s\n    dest: /data/l%s\n    layer: layer%s\n' "$src/l$i" "$i" "$i"
    done
    echo "env: {PATH: /bin, LABELLED: \"$label\"}"
    echo "cmd: [\"/bin/sh\"]"
    echo "labels: {org.example.test: \"$label\"}"
    echo "tags: [v1]"
  } > "$src/recipe.yaml"
  "$ROCKPACK" --quiet build "$src/recipe.yaml" -o "oci:$dest" --compression "${RP_TEST_COMPRESSION:-gzip:1}" | tail -n 1
}

# Manifest digest of a registry image as skopeo sees it.
skopeo_digest() {
  skopeo inspect --tls-verify=false "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])'
}

# start_referrers_shim UPSTREAM_HOSTPORT [ARGS...]: the OCI referrers API in front of a registry
# without it (tests/tools/referrers_shim.py); sets SHIM (host:port). Requests logged to $WORK/shim-PORT.log.
start_referrers_shim() {
  local upstream_port=${1##*:} port
  shift
  port=$(free_port)
  SHIM_LOG="$WORK/shim-$port.log"
  : > "$SHIM_LOG"
  python3 "$TOOLS/referrers_shim.py" --port "$port" --upstream-port "$upstream_port" --log "$SHIM_LOG" "$@" \
    > "$WORK/shim-$port.out" 2>&1 &
  track_pid $!
  wait_http "http://127.0.0.1:$port/v2/"
  SHIM="127.0.0.1:$port"
}
