#!/usr/bin/env bash
# apt through a mirror with real latency: the PyTorch CI package set (the apt names of
# layers/therock-pytorch-ci.yaml as bookworm spells them) installed on one Debian 12 base, side by
# side, in one run, through one loopback server that answers every request LATENCY_MS (default 30)
# after it arrived, as a distant mirror does (bench/latency_server.py):
#   rockpack   base: the Debian 12 test base + sources pointing at the server; apt: the set,
#              recommends: false, scripts: run; cold store -> OCI layout
#   apt-get    `apt-get update` + `apt-get install --no-install-recommends` of the set in a chroot of
#              the same base (what a Dockerfile's RUN does), maintainer scripts run by dpkg
# Both fetch the same indexes (bookworm + bookworm-updates, main; the real InRelease, verified with
# debian-archive-keyring) and the same .debs, copied once from the mirror of this machine's apt
# configuration (or ROCKPACK_DEBIAN_MIRROR): the figures do not depend on the network.
# Needs root (chroot, the sandbox), debootstrap and umoci.
#
#   bench/apt_latency_bench.sh [build/rockpack]      LATENCY_MS=30  APT_BENCH_MIRROR=DIR (kept copy)
#                                                    COMPRESSION=zstd (rockpack's layers; default: gzip)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ROCKPACK=$(realpath "${1:-$here/../build/rockpack}")
export ROCKPACK
source "$here/lib.sh"
source "$here/../tests/integration/lib/debian_base.sh"
[ "$(id -u)" -eq 0 ] || { echo "apt_latency_bench: needs root (chroot)" >&2; exit 77; }
command -v umoci >/dev/null || { echo "apt_latency_bench: umoci is not installed" >&2; exit 77; }
LATENCY_MS=${LATENCY_MS:-30}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=$(debian_apt_mirror)
bench_setup apt-latency
export SOURCE_DATE_EPOCH=1700000000
SUITES="bookworm bookworm-updates"
PACKAGES="cmake gfortran libffi-dev libbz2-dev libreadline-dev libncurses5-dev libncursesw5-dev libgdbm-dev
  libsqlite3-dev uuid-dev tk-dev apt-transport-https autoconf automake build-essential ca-certificates curl git
  libatlas-base-dev libc6-dbg libyaml-dev zlib1g-dev libjemalloc2 libgl1 libjpeg-dev libasound2-dev libsndfile1-dev
  libssl-dev software-properties-common wget sudo vim jq libtool unzip gpg-agent gdb bc zip valgrind libgnutls30
  libpciaccess-dev pkg-config ninja-build ccache libnuma-dev"
PACKAGES=$(echo $PACKAGES)

# The base, and a variant of it whose apt sources are URL (both tools read them from the image).
rc=0
debian_python_base "$work/base" || rc=$?
[ "$rc" -eq 0 ] || { echo "apt_latency_bench: cannot make the Debian 12 base (exit $rc)" >&2; exit "$rc"; }
base_with_sources() {  # URL TAG
  mkdir -p "$work/etc-$2/apt/sources.list.d" "$work/etc-$2/apt/apt.conf.d"
  cat >"$work/etc-$2/apt/sources.list.d/bench.sources" <<SRC
Types: deb
URIs: $1
Suites: $SUITES
Components: main
Signed-By: $KEYRING
SRC
  echo 'Acquire::Languages "none";' >"$work/etc-$2/apt/apt.conf.d/99bench"
  echo '# (the sources are in sources.list.d/bench.sources)' >"$work/etc-$2/apt/sources.list"
  cat >"$work/base-$2.yaml" <<YAML
name: base-$2
base: oci:$work/base:base
files:
  - {src: etc-$2, dest: /etc}
YAML
  "$ROCKPACK" --quiet build "$work/base-$2.yaml" --cache-dir "$work/base-store" -o "oci:$work/base-$2:base" >/dev/null
}
chroot_of() {  # TAG DIR: the base with its sources, unpacked, ready for apt-get
  umoci unpack --image "$work/base-$1:base" "$2" >/dev/null
  local t=$2/rootfs n
  mkdir -p "$t/dev"
  for n in null:1:3 zero:1:5 urandom:1:9 random:1:8; do
    IFS=: read -r name ma mi <<<"$n"
    [ -e "$t/dev/$name" ] || mknod -m 666 "$t/dev/$name" c "$ma" "$mi"
  done
  printf '#!/bin/sh\nexit 101\n' >"$t/usr/sbin/policy-rc.d"
  chmod 755 "$t/usr/sbin/policy-rc.d"
}
apt_get_in() {  # ROOTFS ARGS...: apt-get in the chroot with /proc mounted meanwhile
  local t=$1 rc=0
  shift
  mount -t proc proc "$t/proc"
  chroot "$t" env DEBIAN_FRONTEND=noninteractive apt-get -q "$@" || rc=$?
  umount "$t/proc"
  return "$rc"
}
export -f apt_get_in

# --- the loopback copy: every file either tool asks for --------------------------------------------
base_with_sources "$MIRROR" remote
cat >"$work/remote.yaml" <<YAML
name: remote
base: oci:$work/base-remote:base
apt: {recommends: false, scripts: run, packages: [$(echo "$PACKAGES" | sed 's/ /, /g')]}
YAML
"$ROCKPACK" --quiet plan --json "$work/remote.yaml" --cache-dir "$work/plan-store" >"$work/plan.json"
chroot_of remote "$work/remote"
cp /etc/resolv.conf "$work/remote/rootfs/etc/resolv.conf"
apt_get_in "$work/remote/rootfs" update >/dev/null
apt_get_in "$work/remote/rootfs" install -y --no-install-recommends --print-uris $PACKAGES >"$work/uris.txt"
m=${APT_BENCH_MIRROR:-$work/mirror}  # a kept directory makes a rerun copy only what changed
python3 - "$work/plan.json" "$work/uris.txt" "$MIRROR" "$m" "$SUITES" <<'PY'
import json, os, re, subprocess, sys
plan, uris, mirror, out, suites = sys.argv[1:6]
mirror = mirror.rstrip("/")
todo = set()
def get(rel):
    dest = os.path.join(out, rel)
    if os.path.exists(dest):
        return dest
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    subprocess.run(["curl", "-fsS", "-o", dest, f"{mirror}/{rel}"], check=True)
    return dest
for suite in suites.split():
    inrelease = get(f"dists/{suite}/InRelease")
    sha = open(inrelease).read().split("SHA256:", 1)[1]
    for line in sha.splitlines()[1:]:
        parts = line.split()
        if len(parts) != 3 or not line.startswith(" "):
            break
        h, _, path = parts
        if path == "main/binary-amd64/Packages.xz":
            first = get(f"dists/{suite}/main/binary-amd64/by-hash/SHA256/{h}")
            dest = os.path.join(out, f"dists/{suite}/{path}")
            if not os.path.exists(dest):
                os.link(first, dest)
for c in json.load(open(plan))["components"]:
    if c.get("kind") == "apt-package" and c["url"].startswith(mirror + "/"):
        todo.add(c["url"][len(mirror) + 1:])
for line in open(uris):
    m = re.match(r"'([^']+)' ", line)
    if m and m.group(1).startswith(mirror + "/"):
        todo.add(m.group(1)[len(mirror) + 1:])
for rel in sorted(todo):
    get(rel)
PY
rm -rf "$work/remote"
python3 "$here/latency_server.py" "$m" --latency-ms "$LATENCY_MS" --port 0 --port-file "$work/port" >"$work/server.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 300); do [ -s "$work/port" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$work/port")/"
base_with_sources "$URL" local
debs=$(find "$m/pool" -name '*.deb' | wc -l)
size=$(du -sm "$m/pool" | cut -f1)
requests() { curl -fsS "${URL}__stats" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["requests"], d["connections"])'; }

# --- rockpack, cold store ------------------------------------------------------------------------------
cat >"$work/local.yaml" <<YAML
name: pytorch-ci-apt
base: oci:$work/base-local:base
apt: {recommends: false, scripts: run, packages: [$(echo "$PACKAGES" | sed 's/ /, /g')]}
YAML
read -r r0 c0 < <(requests)
# -v with JSON lines: every line has its time, and the phase and stage lines say where the time went
measure rockpack "$ROCKPACK" -v --log-format json build "$work/local.yaml" --cache-dir "$work/store" \
  ${COMPRESSION:+--compression "$COMPRESSION"} -o "oci:$work/rp:cold"
rp=$WALL rp_rss=$RSS rp_cpu=$(python3 -c "print(round($USR + $SYS, 1))")
read -r r1 c1 < <(requests)

# --- apt-get update + install in a chroot of the same base -------------------------------------------------
chroot_of local "$work/peer"
# Where apt-get's time goes: when update ends, when dpkg starts and ends (DPkg::Pre-Invoke and
# Post-Invoke hooks), and the CPU of each dpkg run with its maintainer scripts (apt runs dpkg
# through a wrapper that adds `times` of its children); dpkg's own log says when unpacking ended.
cat >"$work/peer/rootfs/usr/local/bin/dpkg-timed" <<'SH'
#!/bin/sh
/usr/bin/dpkg "$@"
rc=$?
times >/var/log/bench-dpkg-times  # in this shell: in a pipe, times would see a subshell's
echo "dpkg $(date +%s.%N) $(tail -n 1 /var/log/bench-dpkg-times)" >>/var/log/bench-times
exit $rc
SH
chmod 755 "$work/peer/rootfs/usr/local/bin/dpkg-timed"
cat >"$work/peer/rootfs/etc/apt/apt.conf.d/99bench-times" <<'CONF'
Dir::Bin::dpkg "/usr/local/bin/dpkg-timed";
DPkg::Pre-Invoke { "echo pre $(date +%s.%N) >>/var/log/bench-times"; };
DPkg::Post-Invoke { "echo post $(date +%s.%N) >>/var/log/bench-times"; };
CONF
export work
measure apt_get bash -c 'echo start $(date +%s.%N) >"$work/peer-times" && apt_get_in "$work/peer/rootfs" update &&
  echo updated $(date +%s.%N) >>"$work/peer-times" &&
  apt_get_in "$work/peer/rootfs" install -y --no-install-recommends '"$PACKAGES"' && echo end $(date +%s.%N) >>"$work/peer-times"'
cat "$work/peer/rootfs/var/log/bench-times" >>"$work/peer-times"
ag=$WALL ag_rss=$RSS ag_cpu=$(python3 -c "print(round($USR + $SYS, 1))")
read -r r2 c2 < <(requests)
n_rp=$(python3 -c "import json; print(sum(1 for c in json.load(open('$work/plan.json'))['components'] if c.get('kind') == 'apt-package'))")
n_ag=$(chroot "$work/peer/rootfs" dpkg-query -W | wc -l)

printf 'apt: PyTorch CI set (%s names) on the Debian 12 base, %s .debs (%s MiB) behind %s ms per request, %s cores\n' \
  "$(echo "$PACKAGES" | wc -w)" "$debs" "$size" "$LATENCY_MS" "$(nproc)"
printf '  %-44s %8s s  %6s s CPU  %6s MiB peak RSS  %5s requests on %4s connections\n' \
  "rockpack cold (indexes, .debs, scripts, OCI)" "$rp" "$rp_cpu" "$rp_rss" "$((r1 - r0))" "$((c1 - c0))"
printf '  %-44s %8s s  %6s s CPU  %6s MiB peak RSS  %5s requests on %4s connections\n' \
  "apt-get update + install (chroot)" "$ag" "$ag_cpu" "$ag_rss" "$((r2 - r1))" "$((c2 - c1))"
printf '  packages: rockpack installs %s, the chroot then has %s in dpkg -l\n' "$n_rp" "$n_ag"
python3 -c "print('  rockpack is %.1fx faster than apt-get' % ($ag / $rp))"

# --- the floor: what any tool must do, measured alone --------------------------------------------------
# Decompressing the data of the .debs rockpack installed (dpkg-deb, one after the other), and
# compressing the tar of rockpack's largest layer (the packages' files) with pigz at gzip's level 6
# on every core, from the page cache: what `tar | pigz` of the same tree costs a Docker-side build.
floor() {  # NAME CMD...: "NAME wall cpu"
  local rc=0
  /usr/bin/time -f "%e %U %S" -o "$work/floor.time" "$@" >/dev/null 2>"$work/floor.err" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$work/floor.err" >&2; echo "apt_latency_bench: $1 failed" >&2; exit 1; }
  read -r w u s <"$work/floor.time"
  python3 -c "print('$w', round($u + $s, 2))"
}
python3 -c "
import json, os
for c in json.load(open('$work/plan.json'))['components']:
    if c.get('kind') == 'apt-package' and c['url'].startswith('$MIRROR'.rstrip('/') + '/'):
        print(os.path.join('$m', c['url'][len('$MIRROR'.rstrip('/')) + 1:]))
" >"$work/installed-debs"
read -r f_deb_w f_deb_c < <(floor bash -c 'while read -r d; do dpkg-deb --fsys-tarfile "$d"; done <"$0"' "$work/installed-debs")
layer_blob=$(python3 -c "
import json, os
d = '$work/rp'
idx = json.load(open(d + '/index.json'))
man = json.load(open(d + '/blobs/sha256/' + idx['manifests'][0]['digest'].split(':')[1]))
big = max(man['layers'], key=lambda l: l['size'])
print(d + '/blobs/sha256/' + big['digest'].split(':')[1])")
gzip -dc "$layer_blob" >"$work/layer.tar"
cat "$work/layer.tar" >/dev/null
read -r f_gz_w f_gz_c < <(floor pigz -6 -p "$(nproc)" -c "$work/layer.tar")
layer_mib=$(( $(stat -c %s "$work/layer.tar") / 1048576 ))
rm -f "$work/layer.tar"
printf '  floor parts, measured alone: decompress the installed .debs'"'"' data %s s wall %s s CPU; pigz -6 of the %s MiB package layer %s s wall %s s CPU\n' \
  "$f_deb_w" "$f_deb_c" "$layer_mib" "$f_gz_w" "$f_gz_c"

# --- where the time went ------------------------------------------------------------------------------
python3 "$here/apt_breakdown.py" "$work/rockpack.out" "$work/peer-times" "$work/peer/rootfs/var/log/dpkg.log"
echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
