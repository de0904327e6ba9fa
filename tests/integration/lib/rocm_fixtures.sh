# shellcheck shell=bash
# Fixtures for the `rocm:` integration tests. Source after common.sh and python_fixtures.sh.
#   BASE_PY                  the Debian base's Python X.Y (what its torch wheels must be built for)
#   V1, V2, FAMILY           the mock nightlies and the default family
#   therock_index OUT ARGS   runs tests/tools/make_therock_index.py OUT ARGS (--python defaults to BASE_PY)
#   start_static NAME DIR    serves the directory tree DIR on a free loopback port (static_server.py)
#   static_url NAME          http://127.0.0.1:PORT
#   reset_static NAME / file_downloads NAME: requests for .whl/.tar.gz files since the last reset
#   rocm_recipe FILE NAME    writes a recipe on the Debian base: python (interpreter /usr/bin/python3,
#                            venv /opt/venv) then the lines of stdin (the python packages and the
#                            rocm: section, written at column 0)
#   unpack IMAGE DIR         umoci unpack of an oci: reference's layout:tag into DIR (rootfs in DIR/rootfs)
#   image_config OCI_REF     the image config JSON (skopeo inspect --config)
#   config_env OCI_REF / config_label OCI_REF KEY
#   pip_in ROOT ARGS         runs Debian's pip wheel (zipimport, not installed) with the image's
#                            /opt/venv/bin/python in a chroot: `pip_in ROOT list` sees the venv
#   in_root ROOT CMD...      chroot ROOT with a clean environment (PATH=/opt/venv/bin:/usr/bin:/bin)
ROCM_GEN="$ROCKPACK_SOURCE_DIR/tests/tools/make_therock_index.py"
# debian_base.sh's interpreter version (Debian 12: 3.11).
BASE_PY=$(sed -n 's/^PYVER=//p' "$ROCKPACK_SOURCE_DIR/tests/integration/lib/debian_base.sh")
[ -n "$BASE_PY" ] || fail "cannot read PYVER from debian_base.sh"
V1=7.10.0a20251120
V2=7.10.0a20251121
FAMILY=gfx94X-dcgpu
SITE_REL=opt/venv/lib/python$BASE_PY/site-packages
SITE_ABS=/$SITE_REL
DEVEL_ROOT=$SITE_ABS/_rocm_sdk_devel
TORCH_V1=2.10.0a0+rocm$V1
TORCH_V2=2.10.0a0+rocm$V2

therock_index() {
  local out=$1
  shift
  local args=("$@")
  [[ " ${args[*]} " == *" --python "* ]] || args+=(--python "$BASE_PY")
  python3 "$ROCM_GEN" "$out" "${args[@]}" >"$WORK/gen.log" 2>&1 || fail "make_therock_index.py $* failed: $(cat "$WORK/gen.log")"
}

start_static() {
  start_loopback_server "$1" "$ROCKPACK_SOURCE_DIR/tests/tools/static_server.py" "$2"
}
static_url() { echo "http://127.0.0.1:$(cat "$WORK/$1.port")"; }
static_stats() { curl -fsS "$(static_url "$1")/__stats"; }
reset_static() { curl -fsS -o /dev/null "$(static_url "$1")/__stats?reset=1"; }
# The .whl/.tar.gz paths requested since the last reset, one "path count" a line (empty: none).
file_downloads() {
  static_stats "$1" | python3 -c '
import json, sys
s = json.load(sys.stdin)
for path, n in sorted(s["requests"].items()):
    if path.endswith((".whl", ".tar.gz")):
        print(path, n)'
}
# Whether PATH_SUFFIX (e.g. /gfx90a/rocm_sdk_libraries_gfx90a-V-....whl) was requested: its count.
requests_of() {
  static_stats "$1" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(sum(n for p, n in s["requests"].items() if p.endswith(sys.argv[1])))' "$2"
}

rocm_recipe() {
  local file=$1 name=$2
  { printf 'name: %s\nbase: oci:%s:base\npython:\n  interpreter: /usr/bin/python3\n  venv: /opt/venv\n' "$name" "$BASE"
    cat; } >"$file"
}

unpack() {  # LAYOUT:TAG DIR
  umoci unpack --image "$1" "$2" >"$WORK/umoci.log" 2>&1 || fail "umoci cannot unpack $1: $(cat "$WORK/umoci.log")"
}

image_config() { skopeo inspect --config "$1"; }
config_env() {  # OCI_REF: the Env lines
  image_config "$1" | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["config"].get("Env") or []))'
}
config_label() {  # OCI_REF KEY: the label's value, empty when missing
  image_config "$1" | python3 -c 'import json,sys; print((json.load(sys.stdin)["config"].get("Labels") or {}).get(sys.argv[1], ""))' "$2"
}
# The value of VAR in the Env lines given on stdin.
env_value() { sed -n "s/^$1=//p"; }

in_root() { local root=$1; shift; chroot "$root" /usr/bin/env -i PATH=/opt/venv/bin:/usr/bin:/bin HOME=/root "$@"; }

PIP_WHL=$(ls /usr/share/python-wheels/pip-*.whl 2>/dev/null | head -n 1 || true)
pip_in() {
  local root=$1
  shift
  [ -n "$PIP_WHL" ] || skip "Debian's python3-pip-whl is not installed (pip runs from its wheel in the image)"
  mkdir -p "$root/tmp"
  cp "$PIP_WHL" "$root/tmp/pip.whl"
  in_root "$root" /opt/venv/bin/python /tmp/pip.whl/pip "$@" --disable-pip-version-check
}
# pip list --format=freeze of the image's venv, lower-cased.
pip_freeze() { pip_in "$1" list --format=freeze | tr 'A-Z' 'a-z'; }
assert_installed() {  # FREEZE NAME==VERSION...
  local freeze=$1 want
  shift
  for want in "$@"; do
    grep -qxiF -- "$want" <<<"$freeze" || fail "pip list lacks $want:
$freeze"
  done
}
