#!/usr/bin/env bash
# apt: a Debian 12 minbase + python3 + ca-certificates from nothing, side by side, from one loopback
# mirror, in one run:
#   rockpack   base: scratch, apt: ?essential ?priority(required) python3 ca-certificates -> OCI layout
#   peer       mmdebstrap --variant=minbase --include=python3,ca-certificates (runs the maintainer
#              scripts) -> tar | pigz -p$(nproc) -> an OCI layout (bench/oci_from_layer.py)
# Cold = empty rockpack store / empty mmdebstrap cache; warm = rockpack's second build.
#
# The loopback mirror holds the archive's real InRelease (so both tools verify the real signature
# with debian-archive-keyring), its Packages index and exactly the .debs the build needs, copied
# once from the mirror of this machine's apt configuration (or ROCKPACK_DEBIAN_MIRROR): the figures
# do not depend on the network.
#
#   bench/apt_bench.sh [build/rockpack]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ROCKPACK=$(realpath "${1:-$here/../build/rockpack}")
source "$here/lib.sh"
source "$here/../tests/integration/lib/debian_base.sh"
command -v mmdebstrap >/dev/null || { echo "apt_bench: mmdebstrap is not installed" >&2; exit 77; }
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=$(debian_apt_mirror)
bench_setup apt
export SOURCE_DATE_EPOCH=1700000000
SUITE=bookworm
PACKAGES='"?essential", "?priority(required)", python3, ca-certificates'

recipe() {  # URL OUT [EXTRA_PACKAGES]
  cat >"$2" <<EOF
name: minbase
base: scratch
apt:
  sources: [{url: "$1", suite: $SUITE, components: [main], signed_by: "$KEYRING"}]
  packages: [$PACKAGES${3:-}]
cmd: [/bin/bash]
EOF
}

# --- the loopback mirror ----------------------------------------------------------------------------
# (mmdebstrap's apt takes usrmerge for init-system-helpers' "usrmerge | usr-is-merged", and perl
# with it: the mirror holds those too.)
recipe "$MIRROR" "$work/remote.yaml" ", usrmerge"
"$ROCKPACK" --quiet plan --json "$work/remote.yaml" --cache-dir "$work/plan-cache" >"$work/plan.json"
m="$work/mirror"
mkdir -p "$m/dists/$SUITE/main/binary-amd64"
curl -fsS -o "$m/dists/$SUITE/InRelease" "$MIRROR/dists/$SUITE/InRelease"
python3 - "$work/plan.json" "$MIRROR" "$m" "$m/dists/$SUITE/InRelease" <<'PY'
import json, os, re, subprocess, sys
plan, mirror, out, inrelease = sys.argv[1:5]
todo = []
text = open(inrelease).read()
sha = text.split("SHA256:", 1)[1]
for line in sha.splitlines()[1:]:
    parts = line.split()
    if len(parts) != 3 or not line.startswith(" "):
        break
    h, _, path = parts
    if path == "main/binary-amd64/Packages.xz":
        todo.append((f"dists/bookworm/{path}", f"{mirror}/dists/bookworm/main/binary-amd64/by-hash/SHA256/{h}"))
        todo.append((f"dists/bookworm/main/binary-amd64/by-hash/SHA256/{h}", None))
for c in json.load(open(plan))["components"]:
    if c.get("kind") == "apt-package":
        rel = c["url"].split(mirror.rstrip("/") + "/", 1)[1]
        todo.append((rel, c["url"]))
first = None
for rel, url in todo:
    dest = os.path.join(out, rel)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if url is None:
        os.link(first, dest)
        continue
    subprocess.run(["curl", "-fsS", "-o", dest, url], check=True)
    first = dest
PY
python3 "$here/../tests/tools/static_server.py" "$m" --port 0 --port-file "$work/port" >"$work/server.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$work/port")"
recipe "$URL" "$work/local.yaml"
debs=$(find "$m/pool" -name '*.deb' | wc -l)
size=$(du -sm "$m/pool" | cut -f1)

# --- rockpack: cold, then warm ------------------------------------------------------------------------
measure rockpack_cold "$ROCKPACK" --quiet build "$work/local.yaml" --cache-dir "$work/store" -o "oci:$work/rp:cold"
rp_cold=$WALL rp_cold_rss=$RSS
measure rockpack_warm "$ROCKPACK" --quiet build "$work/local.yaml" --cache-dir "$work/store" -o "oci:$work/rp:warm"
rp_warm=$WALL rp_warm_rss=$RSS

# --- mmdebstrap + tar | pigz + OCI layout ------------------------------------------------------------------
peer() {
  set -euo pipefail
  mmdebstrap --quiet --variant=minbase --include=python3,ca-certificates --keyring="$KEYRING" \
    --aptopt='Acquire::Languages "none"' --skip=cleanup/apt/lists "$SUITE" "$work/peer.tar" "$URL"
  pigz -p"$(nproc)" -6 <"$work/peer.tar" >"$work/peer.tar.gz"
  python3 "$here/oci_from_layer.py" "$work/peer.tar" "$work/peer.tar.gz" "$work/peer-oci"
}
export -f peer
export work here KEYRING SUITE URL
measure mmdebstrap bash -c peer
mm=$WALL mm_rss=$RSS

printf 'apt minbase+python3+ca-certificates, %s .debs (%s MiB), loopback mirror, %s cores\n' "$debs" "$size" "$(nproc)"
printf '  %-44s %8s s  %6s MiB peak RSS\n' "rockpack cold (empty store)" "$rp_cold" "$rp_cold_rss"
printf '  %-44s %8s s  %6s MiB peak RSS\n' "rockpack warm (same recipe again)" "$rp_warm" "$rp_warm_rss"
printf '  %-44s %8s s  %6s MiB peak RSS\n' "mmdebstrap + tar|pigz + OCI layout" "$mm" "$mm_rss"
python3 -c "print('  rockpack cold is %.1fx faster than the peer' % ($mm / $rp_cold))"
