#!/usr/bin/env bash
# Pull benchmark (not a test): what the image costs the CI jobs that pull it. rockpack's ROCm image
# (the recipe of bench/rocm_bench.sh on its whl-next mock, zstd:10 as the nightly, its layers as rockpack writes them) against the peer's
# (the same base and the same files as ONE gzip layer made with `tar | pigz -6`, as the shell peer
# builds it), and the floor: the same base and files as ONE uncompressed layer (nothing to
# decompress; what any encoding of these bytes costs). All are pushed to a loopback registry
# (Debian's docker-registry), then pulled:
#   - `ctr images pull --plain-http` (over TLS with --ctr-path transfer) into a fresh containerd
#     (its own root, state and socket in a scratch directory, started and stopped here):
#     downloaded, checked and unpacked into the overlayfs snapshotter -- what `docker pull` does
#     with Docker 29's containerd image store; on its default (local) path ctr fetches every layer
#     first (in parallel), then unpacks them one after the other, and the table shows both phases
#     (with the CPU seconds of each) and containerd's CPU split into user and kernel time;
#   - `skopeo copy docker://... oci:DIR`: downloaded and checked, not unpacked.
# Each pull starts from nothing (a new containerd root, an empty layout) after a `sync`; each runs
# --runs N times (default 3) in turn and the table shows the medians.
#   bench/pull_bench.sh [--scale rocm|small] [--runs N] [--compression zstd:10] [--max-layer-size 512M]
#                       [--containerd-from trixie | --containerd DIR] [--ctr-path local|transfer]
#                       [--max-concurrent-unpacks N]
#   (ROCKPACK=path/to/rockpack; --max-layer-size sets the recipe's max_layer_size: rockpack's
#   largest package layers split into parts of at most that much, to see what layer sizes change;
#   --containerd-from SUITE runs containerd and ctr from that Debian release's containerd package,
#   fetched verified into the cache (bench/debian_deb.sh), instead of this machine's; --ctr-path
#   transfer pulls through containerd's transfer service (ctr 1.7+: `--local=false`), where the
#   daemon unpacks each layer as soon as it is downloaded while the later ones still download --
#   the path of a containerd client's Pull, such as Docker's; local, ctr's default, fetches every
#   layer first and then unpacks); --containerd DIR runs DIR/bin/containerd and DIR/bin/ctr (built
#   from a release tag by bench/build_containerd.sh); with containerd 2.2 or later the transfer
#   service unpacks up to --max-concurrent-unpacks layers at once (default: the number of cores;
#   1 is containerd's default, one layer after the other, as a containerd client's Pull, Docker
#   29's, still does))
# Needs root (containerd, the Debian base), debootstrap once (cached), docker-registry, containerd,
# ctr, skopeo, pigz, zstd, openssl.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROCKPACK=${ROCKPACK:-$root/build/rockpack}
scale=rocm
runs=3
compression=zstd:10
max_layer_size=""
containerd_from=""
ctr_path=local
containerd_dir=""
max_unpacks=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale=${2:?--scale takes rocm or small}; shift 2 ;;
    --runs) runs=${2:?--runs takes a number}; shift 2 ;;
    --compression) compression=${2:?--compression takes gzip[:N] or zstd[:N]}; shift 2 ;;
    --max-layer-size) max_layer_size=${2:?--max-layer-size takes a size such as 512M}; shift 2 ;;
    --containerd-from) containerd_from=${2:?--containerd-from takes a Debian suite such as trixie}; shift 2 ;;
    --ctr-path) ctr_path=${2:?--ctr-path takes local or transfer}; shift 2 ;;
    --containerd) containerd_dir=${2:?--containerd takes a directory with bin/containerd and bin/ctr}; shift 2 ;;
    --max-concurrent-unpacks) max_unpacks=${2:?--max-concurrent-unpacks takes a number}; shift 2 ;;
    -h | --help) sed -n '2,33p' "$0"; exit 0 ;;
    *) echo "pull_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$scale" in rocm | small) ;; *) echo "pull_bench: --scale is rocm or small" >&2; exit 2 ;; esac
case "$ctr_path" in local | transfer) ;; *) echo "pull_bench: --ctr-path is local or transfer" >&2; exit 2 ;; esac
case "$runs" in '' | *[!0-9]* | 0) echo "pull_bench: --runs takes a number from 1" >&2; exit 2 ;; esac
case "$max_unpacks" in '' ) ;; *[!0-9]* | 0) echo "pull_bench: --max-concurrent-unpacks takes a number from 1" >&2; exit 2 ;; esac
[ -z "$containerd_from" ] || [ -z "$containerd_dir" ] ||
  { echo "pull_bench: --containerd-from and --containerd are exclusive" >&2; exit 2; }
if [ -n "$containerd_dir" ]; then
  if [ ! -x "$containerd_dir/bin/containerd" ] || [ ! -x "$containerd_dir/bin/ctr" ]; then
    echo "pull_bench: $containerd_dir has no bin/containerd and bin/ctr (bench/build_containerd.sh makes them)" >&2
    exit 2
  fi
  containerd_dir=$(cd "$containerd_dir" && pwd)
  export PATH=$containerd_dir/bin:$PATH
fi
[ -x "$ROCKPACK" ] || { echo "pull_bench: build rockpack first ($ROCKPACK)" >&2; exit 2; }
for t in docker-registry containerd ctr skopeo pigz unpigz zstd openssl python3 curl strings /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "pull_bench: $t is missing (tools/install-deps.sh)" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "pull_bench: needs root (containerd)" >&2; exit 2; }
family=gfx94X-dcgpu
cache=${ROCKPACK_BENCH_CACHE:-$HOME/.cache/rockpack-bench}
# go_of BINARY: the Go release a binary was built with (it decides, e.g., whether its SHA-256 uses
# the CPU's SHA instructions: Go 1.21 and later on amd64).
go_of() { grep -m1 -oE '^go1\.[0-9]+(\.[0-9]+)?$' <(strings -n 6 "$1") || echo "go?"; }
version=7.10.0a20251121
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')

# shellcheck source=lib.sh
source "$root/bench/lib.sh"
bench_setup pullbench

# Another Debian release's containerd and ctr (verified; cached), first on PATH from here on. Its
# shims are not needed: nothing runs.
if [ -n "$containerd_from" ]; then
  # shellcheck source=debian_deb.sh
  source "$root/bench/debian_deb.sh"
  mkdir -p "$cache"
  ctrd_tree=$(debian_deb_fetch "$containerd_from" containerd "$cache") ||
    { echo "pull_bench: no containerd from Debian $containerd_from" >&2; exit 2; }
  export PATH=$ctrd_tree/usr/bin:$PATH
fi
ctrd_version=$(containerd --version | awk '{print $3}')
ctrd_go=$(go_of "$(command -v containerd)")
# version_ge A B: A >= B for versions such as v2.2.0 or 1.7.24~ds1.
version_ge() {
  local a b
  a=$(sed -E 's/^v//; s/[^0-9.].*//' <<<"$1") b=$(sed -E 's/^v//; s/[^0-9.].*//' <<<"$2")
  [ "$(printf '%s\n%s\n' "$a" "$b" | sort -V | head -1)" = "$b" ]
}
ctrd_major2=""
version_ge "$ctrd_version" 2.0 && ctrd_major2=1
# The transfer service unpacks layers side by side from containerd 2.2 (max_concurrent_unpacks,
# with a snapshotter that can rebase: overlayfs); before, and on ctr's local path, one at a time.
unpacks=1
if version_ge "$ctrd_version" 2.2 && [ "$ctr_path" = transfer ]; then
  unpacks=${max_unpacks:-$(nproc)}
elif [ -n "$max_unpacks" ] && [ "$max_unpacks" != 1 ]; then
  echo "pull_bench: --max-concurrent-unpacks needs containerd 2.2 or later and --ctr-path transfer (containerd $ctrd_version, $ctr_path path)" >&2
  exit 2
fi
if [ "$ctr_path" = transfer ] && ! grep -q -- '--local' <<<"$(ctr images pull --help 2>&1)"; then
  echo "pull_bench: ctr $ctrd_version has no transfer service (--ctr-path transfer needs containerd 1.7 or later)" >&2
  exit 2
fi

# The mock index (the one bench/rocm_bench.sh --layout whl-next uses and caches: same key, same
# directory) and the Debian python3 base.
gen=$root/tests/tools/make_therock_index.py
key=$(sha256sum <"$gen" | cut -c1-12)
index_dir=$cache/therock-$scale-whl-next-$family-$version-py$pyver-$key
mkdir -p "$cache"
if [ ! -d "$index_dir" ]; then
  echo "generating the $scale-scale mock TheRock index (once; cached in $index_dir)..." >&2
  rm -rf "$index_dir.tmp"
  python3 "$gen" "$index_dir.tmp" --layout whl-next --target gfx942 --target gfx950 --versions "$version" \
    --python "$pyver" --scale "$scale"
  mv "$index_dir.tmp" "$index_dir"
fi
# shellcheck source=../tests/integration/lib/debian_base.sh
source "$root/tests/integration/lib/debian_base.sh"
rc=0
ROCKPACK=$ROCKPACK debian_python_base "$work/base" || rc=$?
[ "$rc" -eq 0 ] || { echo "pull_bench: no Debian python3 base (exit $rc)" >&2; exit 2; }
python3 "$root/tests/tools/static_server.py" "$index_dir" --routes "$index_dir/routes.json" --port 0 --port-file "$work/port" >"$work/server.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "pull_bench: the index server did not start" >&2; exit 1; }
cat >"$work/recipe.yaml" <<EOF
name: pullbench
base: oci:$work/base:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
rocm:
  source: therock
  index: "http://127.0.0.1:$(cat "$work/port")/rocm/whl-next/"
  verify: tls-only
  targets: gfx942
  components: [libraries, devel]
  version: latest
EOF
[ -z "$max_layer_size" ] || echo "max_layer_size: $max_layer_size" >>"$work/recipe.yaml"

echo "building rockpack's image ($compression${max_layer_size:+, max_layer_size $max_layer_size})..." >&2
"$ROCKPACK" --quiet build "$work/recipe.yaml" --compression "$compression" -o "oci:$work/rp:t" --cache-dir "$work/store" >&2

# The peer's image: the base's layers, then everything above them unpacked into one tree and
# written as one layer with tar | pigz -6 (what the shell peer pushes).
echo "making the peer's image (one tar | pigz layer)..." >&2
python3 - "$work/rp" "$work/base" "$work/layers.list" <<'P'
import json, os, sys
def image(d):
    idx = json.load(open(os.path.join(d, "index.json")))
    m = json.load(open(os.path.join(d, "blobs/sha256", idx["manifests"][0]["digest"][7:])))
    return m
base = {l["digest"] for l in image(sys.argv[2])["layers"]}
with open(sys.argv[3], "w") as f:
    for l in image(sys.argv[1])["layers"]:
        if l["digest"] not in base:
            f.write(os.path.join(sys.argv[1], "blobs/sha256", l["digest"][7:]) + "\n")
P
mkdir -p "$work/tree"
# (zstd -dc reads gzip too: Debian's zstd is built with zlib)
while read -r blob; do zstd -dcf "$blob" | tar -x -C "$work/tree" --numeric-owner; done <"$work/layers.list"
tar --sort=name --numeric-owner -C "$work/tree" -cf "$work/peer.tar" .
pigz -6 -c "$work/peer.tar" >"$work/peer.tar.gz"
rm -rf "$work/tree"
# one_layer_image OUT BLOB MEDIA_TYPE CREATED_BY: the base's image plus peer.tar as one layer whose
# blob is BLOB (peer.tar itself or its compressed form).
cat >"$work/one_layer.py" <<'P'
import hashlib, json, os, shutil, sys
base, tar, blob, media, created_by, out = sys.argv[1:7]
def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for c in iter(lambda: f.read(1 << 20), b""):
            h.update(c)
    return h.hexdigest()
shutil.copytree(base, out)
blobs = os.path.join(out, "blobs/sha256")
idx = json.load(open(os.path.join(base, "index.json")))
m = json.load(open(os.path.join(blobs, idx["manifests"][0]["digest"][7:])))
c = json.load(open(os.path.join(blobs, m["config"]["digest"][7:])))
layer = sha(blob)
shutil.copyfile(blob, os.path.join(blobs, layer))
c["rootfs"]["diff_ids"].append("sha256:" + sha(tar))
c.setdefault("history", []).append({"created_by": created_by})
def put(obj):
    data = json.dumps(obj, separators=(",", ":")).encode()
    d = hashlib.sha256(data).hexdigest()
    open(os.path.join(blobs, d), "wb").write(data)
    return "sha256:" + d, len(data)
cd, cs = put(c)
m["config"] = {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cd, "size": cs}
m["layers"].append({"mediaType": media, "digest": "sha256:" + layer, "size": os.path.getsize(blob)})
md, ms = put(m)
json.dump({"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
           "digest": md, "size": ms, "annotations": {"org.opencontainers.image.ref.name": "t"}}]},
          open(os.path.join(out, "index.json"), "w"))
P
one_layer_image() {
  python3 "$work/one_layer.py" "$work/base" "$work/peer.tar" "$2" "$3" "$4" "$work/$1"
}
one_layer_image peer "$work/peer.tar.gz" application/vnd.oci.image.layer.v1.tar+gzip "tar | pigz -6"
# The floor: the same files as one uncompressed layer -- no decompression at all, so what containerd
# spends on it (transfer, two sha256 passes, tar parse, file writes) is what any encoding costs.
echo "making the floor's image (the same tar, uncompressed)..." >&2
one_layer_image raw "$work/peer.tar" application/vnd.oci.image.layer.v1.tar "tar (uncompressed)"

# The floor in numbers: the work a consumer cannot avoid on this machine, each part measured alone
# (one thread; the input already in the page cache, as downloaded bytes are), in the directory that
# holds containerd's root (the same filesystem):
#   files:  tar -x of the same files into a fresh directory (the snapshot's writes), then the sync
#           that writes them back (not on the pull's path: containerd does not fsync the files);
#   blob:   the compressed bytes written to one file and fsynced (the content store's commit);
#   hash:   SHA-256 (openssl, which uses the SHA instructions as Go 1.21+ does) of the tar (the
#           diff_id) and of the compressed blobs (their digests);
#   decode: zstd -d of rockpack's layers (containerd's Go decoder is slower than libzstd), unpigz of
#           the peer's layer (what containerd runs for gzip when pigz is installed).
# floor_cpu NAME: the CPU seconds (user + system) of the measured step NAME.
floor_cpu() { awk '{printf "%.2f", $3 + $4}' "$work/floor_$1.time"; }
floor_sys() { awk '{printf "%.2f", $4}' "$work/floor_$1.time"; }
floor_wall() { awk '{printf "%.2f", $1}' "$work/floor_$1.time"; }
echo "measuring the floor's parts (tar -x, blob write, SHA-256, decoding)..." >&2
mapfile -t rp_blobs <"$work/layers.list"
cat "$work/peer.tar" "$work/peer.tar.gz" "${rp_blobs[@]}" >/dev/null
mkdir -p "$work/floor_files"
measure floor_files tar -x -f "$work/peer.tar" -C "$work/floor_files" --numeric-owner
/usr/bin/time -f "%e %M %U %S" -o "$work/floor_sync.time" sync  # (measure would sync first)
rm -rf "$work/floor_files"
measure floor_blob_rp bash -c 'cat "$@" | dd of="$0" bs=1M conv=fsync status=none' "$work/floor_blob" "${rp_blobs[@]}"
measure floor_blob_peer dd if="$work/peer.tar.gz" of="$work/floor_blob" bs=1M conv=fsync status=none
rm -f "$work/floor_blob"
measure floor_hash_tar openssl dgst -sha256 "$work/peer.tar"
measure floor_hash_rp openssl dgst -sha256 "${rp_blobs[@]}"
measure floor_hash_peer openssl dgst -sha256 "$work/peer.tar.gz"
measure floor_decode_rp bash -c 'for b; do zstd -dcf "$b"; done >/dev/null' _ "${rp_blobs[@]}"
measure floor_decode_peer bash -c 'unpigz -dc "$0" >/dev/null' "$work/peer.tar.gz"
tar_bytes=$(stat -c %s "$work/peer.tar")
rm -f "$work/peer.tar" "$work/peer.tar.gz"

# The registry, and the images in it.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Plain HTTP, but TLS for containerd 1.7's transfer service: it ignores --plain-http (its resolver
# knows only https), so the registry gets a throwaway certificate that containerd trusts through
# SSL_CERT_FILE (Go reads it) and ctr through --tlscacert. containerd 2's takes --plain-http (and
# its ctr refuses --tlscacert there).
tls_yaml="" scheme=http
if [ "$ctr_path" = transfer ] && [ -z "$ctrd_major2" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$work/registry.key" -out "$work/registry.crt" 2>/dev/null
  tls_yaml=", tls: {certificate: $work/registry.crt, key: $work/registry.key}"
  scheme=https
fi
cat >"$work/registry.yml" <<YAML
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $work/registry}}
http: {addr: 127.0.0.1:$port, secret: pull-bench$tls_yaml}
YAML
docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do curl -ks -o /dev/null "$scheme://127.0.0.1:$port/v2/" && break; sleep 0.1; done
reg=127.0.0.1:$port
images=(rp peer raw)
# --preserve-digests: without it skopeo gzips an uncompressed layer on its way to a registry.
for img in "${images[@]}"; do
  skopeo copy --quiet --preserve-digests --dest-tls-verify=false "oci:$work/$img:t" "docker://$reg/bench/$img:t"
done
sizes() {  # layers, total bytes in the registry, media types
  python3 - "$1" <<'P'
import json, os, sys
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "index.json")))
m = json.load(open(os.path.join(d, "blobs/sha256", idx["manifests"][0]["digest"][7:])))
kinds = sorted({l["mediaType"].rsplit("+", 1)[-1].rsplit(".", 1)[-1] for l in m["layers"]})
print(len(m["layers"]), sum(l["size"] for l in m["layers"]), "/".join(kinds))
P
}
declare -A layers bytes kinds
for img in "${images[@]}"; do
  read -r "layers[$img]" "bytes[$img]" "kinds[$img]" < <(sizes "$work/$img")
done

# A fresh containerd for each pull (its own root: nothing cached between pulls).
ctrd_pid=""
start_containerd() {
  local d=$work/containerd
  rm -rf "$d"
  mkdir -p "$d/root" "$d/state"
  # 2.x reads config version 3 and has more CRI plugins to leave out; the rest is the same.
  local config_version=2 disabled='"io.containerd.grpc.v1.cri"'
  if [ -n "$ctrd_major2" ]; then
    config_version=3
    disabled='"io.containerd.grpc.v1.cri", "io.containerd.cri.v1.images", "io.containerd.cri.v1.runtime"'
  fi
  cat >"$d/config.toml" <<TOML
version = $config_version
root = "$d/root"
state = "$d/state"
disabled_plugins = [$disabled]
[grpc]
  address = "$d/sock"
[ttrpc]
  address = "$d/sock.ttrpc"
[debug]
  address = "$d/debug.sock"
TOML
  # Only a containerd that knows the key gets it (2.2 and later).
  if [ -n "$ctrd_major2" ] && version_ge "$ctrd_version" 2.2; then
    cat >>"$d/config.toml" <<TOML
[plugins."io.containerd.transfer.v1.local"]
  max_concurrent_unpacks = $unpacks
TOML
  fi
  if [ "$scheme" = https ]; then
    SSL_CERT_FILE=$work/registry.crt containerd --config "$d/config.toml" >"$work/containerd.log" 2>&1 &
  else
    containerd --config "$d/config.toml" >"$work/containerd.log" 2>&1 &
  fi
  ctrd_pid=$!
  PIDS+=($ctrd_pid)
  for _ in $(seq 1 100); do ctr --address "$d/sock" version >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "pull_bench: containerd does not start: $(tail -3 "$work/containerd.log")" >&2
  exit 1
}
# containerd's user and kernel CPU seconds so far, with the children it reaped (unpigz for gzip
# layers), from /proc: "user sys".
containerd_cpu() {
  local f
  read -r -a f <"/proc/$ctrd_pid/stat"
  awk -v t="$(getconf CLK_TCK)" -v a="${f[13]}" -v b="${f[14]}" -v c="${f[15]}" -v d="${f[16]}" \
    'BEGIN {printf "%.2f %.2f\n", (a + c) / t, (b + d) / t}'
}
stop_containerd() {
  kill "$ctrd_pid" 2>/dev/null || true
  wait "$ctrd_pid" 2>/dev/null || true
  # Snapshots are mounts only while a container runs; none does. The root goes with the next start.
}
# ctr's two phases from its output: the last "elapsed: Xs" of the fetch (every layer downloaded,
# checked and committed to the content store) and "done: <duration>" of the unpack (every layer,
# one after the other, decompressed, hashed and written into its snapshot): "fetch unpack".
ctr_phases() {
  python3 - "$1" <<'P'
import re, sys
text = open(sys.argv[1], errors="replace").read()
fetch = re.findall(r"elapsed: *([0-9.]+) *s", text)  # 1.7 pads it: "elapsed: 7.0 s"
done = re.search(r"done: *([0-9hms.µn]+)", text)
def seconds(d):
    total = 0.0
    for v, u in re.findall(r"([0-9.]+)(h|ms|µs|ns|m|s)", d):
        total += float(v) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}[u]
    return total
print("%.2f %.2f" % (float(fetch[-1]) if fetch else 0, seconds(done.group(1)) if done else 0))
P
}

# pull IMG: ctr's pull as `measure` times it (into WALL, USR, SYS: ctr's own), and containerd's CPU
# when the unpack starts (ctr prints "unpacking" once every layer is fetched): into MID ("user sys").
# Through the transfer service (--ctr-path transfer) ctr unpacks only for the platforms it is given.
ctr_opts=(--plain-http)
if [ "$ctr_path" = transfer ]; then
  ctr_opts=(--local=false --platform "linux/$(dpkg --print-architecture)")
  if [ "$scheme" = https ]; then ctr_opts+=(--tlscacert "$work/registry.crt"); else ctr_opts+=(--plain-http); fi
fi
pull() {
  local img=$1 pid
  sync
  /usr/bin/time -f "%e %M %U %S" -o "$work/ctr_$img.time" \
    ctr --address "$work/containerd/sock" -n bench images pull "${ctr_opts[@]}" "$reg/bench/$img:t" >"$work/ctr_$img.out" 2>&1 &
  pid=$!
  MID=""
  while kill -0 "$pid" 2>/dev/null; do
    [ -z "$MID" ] && grep -saq '^unpacking' "$work/ctr_$img.out" && MID=$(containerd_cpu)
    sleep 0.2
  done
  wait "$pid" || { cat "$work/ctr_$img.out" >&2; echo "pull_bench: the pull of $img failed" >&2; exit 1; }
  [ -n "$MID" ] || MID=$(containerd_cpu)
  read -r WALL _ USR SYS <"$work/ctr_$img.time"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for img in "${images[@]}"; do
  for m in ctr fetch unpack cpu fcpu ucpu cuser csys skopeo; do : >"$work/$m.$img"; done
done
snapshotter=unknown
for round in $(seq 1 "$runs"); do
  for img in "${images[@]}"; do
    start_containerd
    # The snapshotter the pull unpacks into (overlayfs unless the filesystem under the root refuses
    # it; `native` would copy the whole parent tree for every layer).
    snapshotter=$(ctr --address "$work/containerd/sock" plugins ls 2>/dev/null |
      awk '$1 == "io.containerd.snapshotter.v1" && $2 == "overlayfs" {print $2 " (" $NF ")"}')
    read -r u0 s0 < <(containerd_cpu)
    pull "$img"
    read -r u1 s1 < <(containerd_cpu)
    # Unpacked, not just downloaded: a committed snapshot for every layer.
    committed=$(ctr --address "$work/containerd/sock" -n bench snapshots ls | awk '$NF == "Committed"' | wc -l)
    [ "$committed" -ge "${layers[$img]}" ] || {
      echo "pull_bench: the pull of $img left $committed committed snapshots for ${layers[$img]} layers (not unpacked?)" >&2
      exit 1
    }
    read -r um sm <<<"$MID"
    read -r fetch unpack < <(ctr_phases "$work/ctr_$img.out")
    echo "$WALL" >>"$work/ctr.$img"
    echo "$fetch" >>"$work/fetch.$img"
    echo "$unpack" >>"$work/unpack.$img"
    awk -v a="$u0" -v b="$u1" 'BEGIN {printf "%.2f\n", b - a}' >>"$work/cuser.$img"
    awk -v a="$s0" -v b="$s1" 'BEGIN {printf "%.2f\n", b - a}' >>"$work/csys.$img"
    awk -v u="$USR" -v s="$SYS" -v a="$u0" -v b="$u1" -v c="$s0" -v d="$s1" \
      'BEGIN {printf "%.2f\n", u + s + (b - a) + (d - c)}' >>"$work/cpu.$img"
    # ctr's CPU goes to the fetch: during the unpack it waits for containerd.
    awk -v u="$USR" -v s="$SYS" -v a="$u0" -v b="$um" -v c="$s0" -v d="$sm" \
      'BEGIN {printf "%.2f\n", u + s + (b - a) + (d - c)}' >>"$work/fcpu.$img"
    awk -v a="$um" -v b="$u1" -v c="$sm" -v d="$s1" 'BEGIN {printf "%.2f\n", (b - a) + (d - c)}' >>"$work/ucpu.$img"
    stop_containerd
    rm -rf "$work/layout"
    measure "skopeo_$img" skopeo copy --quiet --src-tls-verify=false "docker://$reg/bench/$img:t" "oci:$work/layout:t"
    echo "$WALL" >>"$work/skopeo.$img"
    rm -rf "$work/layout"
  done
  echo "round $round: ctr (fetch + unpack, CPU-s) rockpack $(tail -n1 "$work/ctr.rp") s ($(tail -n1 "$work/fetch.rp") + $(tail -n1 "$work/unpack.rp"), $(tail -n1 "$work/cpu.rp")," \
    "peer $(tail -n1 "$work/ctr.peer") s ($(tail -n1 "$work/fetch.peer") + $(tail -n1 "$work/unpack.peer"), $(tail -n1 "$work/cpu.peer"))," \
    "uncompressed $(tail -n1 "$work/ctr.raw") s ($(tail -n1 "$work/fetch.raw") + $(tail -n1 "$work/unpack.raw"), $(tail -n1 "$work/cpu.raw"));" \
    "skopeo rockpack $(tail -n1 "$work/skopeo.rp") s, peer $(tail -n1 "$work/skopeo.peer") s, uncompressed $(tail -n1 "$work/skopeo.raw") s" >&2
done
declare -A med
for img in "${images[@]}"; do
  for m in ctr fetch unpack cpu fcpu ucpu cuser csys skopeo; do med[$m.$img]=$(median <"$work/$m.$img"); done
done
mb() { awk -v b="$1" 'BEGIN {printf "%.1f MB", b / 1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", (b > 0) ? a / b : 0}'; }
row() {  # IMG LABEL
  local i=$1 fetch_cell unpack_cell
  fetch_cell="${med[fetch.$i]} s (${med[fcpu.$i]})"
  unpack_cell="${med[unpack.$i]} s (${med[ucpu.$i]})"
  # The transfer service downloads and unpacks at once: no phases to tell apart.
  [ "$ctr_path" = local ] || { fetch_cell="overlapped"; unpack_cell="overlapped"; }
  echo "| $2 | ${layers[$i]} | $(mb "${bytes[$i]}") | ${med[ctr.$i]} s | $fetch_cell |" \
    "$unpack_cell | ${med[cpu.$i]} s | ${med[cuser.$i]} / ${med[csys.$i]} s | ${med[skopeo.$i]} s |"
}
echo
echo "Pull of the ROCm image ($scale scale, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), medians of $runs;" \
  "containerd $ctrd_version built with $ctrd_go, ctr's $ctr_path path, $unpacks layer(s) unpacked at once):"
echo
echo "| image | layers | in the registry | ctr images pull (+unpack) | fetch (CPU-s) | unpack (CPU-s) | its CPU (ctr + containerd) | containerd user / kernel | skopeo copy to oci: |"
echo "|---|---|---|---|---|---|---|---|---|"
row rp "rockpack ($compression${max_layer_size:+, max_layer_size $max_layer_size}; base layers ${kinds[rp]})"
row peer "peer (one ${kinds[peer]} layer from tar \\| pigz)"
row raw "floor: the same files as one uncompressed layer"
fetch_ratio=$(ratio "${med[fetch.peer]}" "${med[fetch.rp]}") unpack_ratio=$(ratio "${med[unpack.peer]}" "${med[unpack.rp]}")
[ "$ctr_path" = local ] || fetch_ratio="" unpack_ratio=""
echo "| peer ÷ rockpack | | | $(ratio "${med[ctr.peer]}" "${med[ctr.rp]}") | $fetch_ratio |" \
  "$unpack_ratio | $(ratio "${med[cpu.peer]}" "${med[cpu.rp]}") | | $(ratio "${med[skopeo.peer]}" "${med[skopeo.rp]}") |"
echo
[ "$ctr_path" = local ] && echo "The floor's unpack (${med[unpack.raw]} s, ${med[ucpu.raw]} CPU-s: the diff_id's SHA-256, the tar, the files written," \
  "nothing decompressed but the base's gzip layer) is what any encoding of these files costs containerd's one" \
  "unpacking goroutine; its fetch (${med[fetch.raw]} s, ${med[fcpu.raw]} CPU-s for $(mb "${bytes[raw]}")) is what bytes in" \
  "the registry cost: every compressed byte is downloaded, hashed and written (and fsynced) into the content store."

# The floor's parts, and the best wall they allow: the applying goroutine of a layer hashes its tar
# and writes its files (the same for every encoding), so with layers applied one after the other
# (containerd 1.7 to 2.1, and a client's Pull such as Docker 29's) no pull is shorter than that
# chain (in CPU seconds: on a loaded machine the wall of each part is not its own); with layers applied side by side (2.2's transfer service) only the sum of all the parts
# over the cores bounds rockpack's image (and the chain still bounds the peer's, one layer). Neither counts HTTP (the registry's and the client's CPU): both are
# lower bounds.
cores=$(nproc)
fl() { floor_wall "$1"; }
fc() { floor_cpu "$1"; }
read -r chain total_rp total_peer serial_rp serial_peer parallel_rp parallel_peer line < <(awk \
  -v files="$(fc files)" -v htar="$(fc hash_tar)" -v brp="$(fc blob_rp)" -v bpeer="$(fc blob_peer)" \
  -v hrp="$(fc hash_rp)" -v hpeer="$(fc hash_peer)" -v drp="$(fc decode_rp)" -v dpeer="$(fc decode_peer)" \
  -v dpeerw="$(fl decode_peer)" -v n="$cores" -v peer="${med[ctr.peer]}" 'function max(a, b) {return a > b ? a : b}
  BEGIN {
    chain = files + htar
    trp = files + htar + brp + hrp + drp; tpeer = files + htar + bpeer + hpeer + dpeer
    printf "%.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f\n", chain, trp, tpeer, max(chain, trp / n),
      max(max(chain, dpeerw), tpeer / n), trp / n, max(max(chain, dpeerw), tpeer / n), peer / 2
  }')
row_floor() { echo "| $1 | $(fl "$2") s | $(fc "$2") s ($(floor_sys "$2") s) |"; }
echo
echo "The floor's parts on this machine (each alone, one thread, input in the page cache; $(mb "$tar_bytes") of tar):"
echo
echo "| part | wall | CPU-s (kernel) |"
echo "|---|---|---|"
row_floor "the files written (tar -x into a fresh directory next to containerd's root)" files
row_floor "their writeback (sync; containerd does not wait for it)" sync
row_floor "rockpack's blobs written and fsynced ($(mb "${bytes[rp]}") with the base)" blob_rp
row_floor "the peer's blob written and fsynced" blob_peer
row_floor "SHA-256 of the tar (the diff_ids)" hash_tar
row_floor "SHA-256 of rockpack's blobs" hash_rp
row_floor "SHA-256 of the peer's blob" hash_peer
row_floor "zstd -d of rockpack's layers (libzstd)" decode_rp
row_floor "unpigz of the peer's layer" decode_peer
echo
echo "Best wall these parts allow (no HTTP counted): layers applied one after the other (containerd up to 2.1," \
  "a client's Pull as Docker 29's, max_concurrent_unpacks = 1) $serial_rp s for rockpack's image, $serial_peer s for the peer's (the applying chain, files + diff_id," \
  "is $chain s for any encoding); layers applied side by side on $cores cores (2.2's transfer service)" \
  "$parallel_rp s and $parallel_peer s (all parts: $total_rp and $total_peer CPU-s). The 2x line, half the" \
  "peer's measured pull (${med[ctr.peer]} s), is $line s."
echo
echo "containerd's snapshotter: $snapshotter; rockpack's layers (compressed bytes):"
python3 - "$work/rp" <<'P'
import json, os, sys
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "index.json")))
m = json.load(open(os.path.join(d, "blobs/sha256", idx["manifests"][0]["digest"][7:])))
print("  " + ", ".join("%.1f MB %s" % (l["size"] / 1e6, l["mediaType"].rsplit("+", 1)[-1]) for l in m["layers"]))
P
