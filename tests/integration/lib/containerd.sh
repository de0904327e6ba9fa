# A private containerd for the tests: its own root, state and socket under $WORK, the CRI plugin
# off, stopped on exit (common.sh). Source after common.sh. Sets CTR_ADDR; `ctrd ARGS` runs ctr on it.
need containerd; need ctr

start_containerd() {
  local d="$WORK/containerd"
  mkdir -p "$d/root" "$d/state"
  cat > "$d/config.toml" <<TOML
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$d/containerd.sock"
[ttrpc]
  address = "$d/containerd.sock.ttrpc"
[debug]
  address = "$d/debug.sock"
TOML
  containerd --config "$d/config.toml" >"$d/log" 2>&1 &
  track_pid $!
  CTR_ADDR="$d/containerd.sock"
  local i
  for i in $(seq 1 100); do
    ctr --address "$CTR_ADDR" version >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  skip "containerd cannot start here: $(tail -3 "$d/log")"
}

ctrd() { ctr --address "$CTR_ADDR" "$@"; }
