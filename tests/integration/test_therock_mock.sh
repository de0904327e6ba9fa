#!/usr/bin/env bash
# The mock TheRock index (tests/tools/make_therock_index.py) must be faithful enough for pip itself:
# serve a small per-family index on loopback, install `rocm[libraries,devel]` and torch into a fresh
# venv with the host's pip, then drive the `rocm-sdk` command the sdist installs. Rockpack is not
# involved; this guards the fixture the rocm: tests build on.
ROCKPACK=${ROCKPACK:-/bin/false}
ROCKPACK_SOURCE_DIR=${ROCKPACK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export ROCKPACK ROCKPACK_SOURCE_DIR
source "$(dirname "$0")/lib/common.sh"

need python3
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 has no venv/ensurepip module"
PYVER=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
GEN="$ROCKPACK_SOURCE_DIR/tests/tools/make_therock_index.py"
FAMILY=gfx94X-dcgpu
V1=7.10.0a20251120
V2=7.10.0a20251121

python3 "$GEN" "$WORK/index" --family "$FAMILY" --versions "$V1,$V2" --python "$PYVER"
INDEX="$WORK/index/$FAMILY"
[ -f "$INDEX/rocm/index.html" ] || fail "no rocm project page in the generated index"
assert_contains "$(cat "$INDEX/torch/index.html")" "torch-2.10.0a0%2Brocm$V2-" "torch links encode + as %2B"

# Determinism: a second run gives byte-identical files.
python3 "$GEN" "$WORK/index2" --family "$FAMILY" --versions "$V1,$V2" --python "$PYVER"
diff -r "$WORK/index" "$WORK/index2" >/dev/null || fail "two runs of the generator differ"

# Serve it. Port 0: the server picks a free port and says which.
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$INDEX" >"$WORK/http.log" 2>&1 &
SERVER=$!
cleanup_server() { kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup_server EXIT
PORT=
for _ in $(seq 1 50); do
  PORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$WORK/http.log" | head -n 1)
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || fail "http.server did not start: $(cat "$WORK/http.log")"
URL="http://127.0.0.1:$PORT/"

python3 -m venv "$WORK/venv"
PY="$WORK/venv/bin/python"
# The rocm sdist is built with setuptools, as in real life. Offline, pip cannot fetch setuptools
# into an isolated build environment, so the build uses the venv's own setuptools and wheel.
"$PY" -c 'import setuptools' 2>/dev/null || skip "the venv has no setuptools (Python >= 3.12 venvs ship none)"
if ! "$PY" -c 'import wheel' 2>/dev/null; then
  WHEEL_WHL=$(ls /usr/share/python-wheels/wheel-*.whl 2>/dev/null | head -n 1 || true)
  [ -n "$WHEEL_WHL" ] || skip "no 'wheel' package available offline (Debian's python3-wheel-whl ships it)"
  "$PY" -m pip install --quiet --no-index --no-cache-dir "$WHEEL_WHL" || skip "cannot install $WHEEL_WHL"
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_NO_INPUT=1

# Newest nightly by default, like the real index.
"$PY" -m pip install --quiet --index-url "$URL" --no-build-isolation 'rocm[libraries,devel]' torch \
  || fail "pip could not install rocm[libraries,devel] and torch from the mock index"

LIST=$("$PY" -m pip list --format=freeze)
for want in "rocm==$V2" "rocm-sdk-core==$V2" "rocm-sdk-devel==$V2" "rocm-sdk-libraries-gfx94x-dcgpu==$V2" \
            "torch==2.10.0a0+rocm$V2" "pytorch-triton-rocm==3.5.0+rocm$V2" "filelock==" "sympy==" "mpmath==" \
            "networkx==" "Jinja2==" "MarkupSafe==" "fsspec==" "typing_extensions=="; do
  grep -qiF -- "$want" <<<"$LIST" || fail "pip list lacks $want:
$LIST"
done
grep -qi '^rocm-profiler==' <<<"$LIST" && fail "rocm-profiler installed without the profiler extra"

SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[ -d "$SITE/_rocm_sdk_libraries_gfx94X_dcgpu" ] || fail "libraries package directory lost its case"

ROCM_SDK="$WORK/venv/bin/rocm-sdk"
[ -x "$ROCM_SDK" ] || fail "the rocm sdist installed no rocm-sdk launcher"
assert_eq "$("$ROCM_SDK" version)" "$V2" "rocm-sdk version"
assert_eq "$("$ROCM_SDK" targets)" "gfx942" "rocm-sdk targets"

[ -f "$SITE/rocm_sdk_devel/_devel.tar" ] || fail "devel tarball missing before init"
"$ROCM_SDK" init
[ ! -e "$SITE/rocm_sdk_devel/_devel.tar" ] || fail "init left the tarball behind"
[ -f "$SITE/_rocm_sdk_devel/__init__.py" ] || fail "init did not expand the tree"
assert_eq "$("$ROCM_SDK" path --root)" "$SITE/_rocm_sdk_devel" "rocm-sdk path --root"
assert_eq "$("$ROCM_SDK" path --bin)" "$SITE/_rocm_sdk_devel/bin" "rocm-sdk path --bin"
assert_eq "$("$ROCM_SDK" path --cmake)" "$SITE/_rocm_sdk_devel/lib/cmake" "rocm-sdk path --cmake"

DEVEL="$SITE/_rocm_sdk_devel"
inode() { stat -c %i "$1"; }
# File symlinks became hardlinks of the runtime files; a link whose target comes later in the
# tarball (lib/libamdhip64.so -> libamdhip64.so.7) stays a symlink, as TheRock's init leaves it.
[ ! -L "$DEVEL/lib/libamdhip64.so.7" ] || fail "file symlink not turned into a hardlink"
assert_eq "$(inode "$DEVEL/lib/libamdhip64.so.7")" "$(inode "$SITE/_rocm_sdk_core/lib/libamdhip64.so.7")" "hardlink inode"
assert_eq "$(readlink "$DEVEL/lib/libamdhip64.so")" "libamdhip64.so.7" "a link to a later member stays a symlink"
assert_eq "$(inode "$DEVEL/bin/hipconfig")" "$(inode "$SITE/_rocm_sdk_core/bin/hipconfig")" "bin hardlink inode"
# Launchers and directories stay symlinks.
[ -L "$DEVEL/bin/amdclang" ] || fail "bin/amdclang should stay a symlink"
[ -L "$DEVEL/lib/llvm" ] && [ -d "$DEVEL/lib/llvm" ] || fail "lib/llvm should stay a directory symlink"
[ -x "$DEVEL/bin/hipcc" ] && [ ! -L "$DEVEL/bin/hipcc" ] || fail "bin/hipcc should be an executable file"
[ -f "$DEVEL/include/hip/hip_runtime.h" ] || fail "headers missing"
# Expanded paths are recorded in rocm-sdk-devel's RECORD, so pip uninstalls them.
RECORD=$(ls "$SITE"/rocm_sdk_devel-"$V2".dist-info/RECORD)
grep -qxF "_rocm_sdk_devel/lib/libamdhip64.so.7,," "$RECORD" || fail "expanded file not in RECORD"
grep -qxF "_rocm_sdk_devel/bin/amdclang,," "$RECORD" || fail "launcher link not in RECORD"

"$WORK/venv/bin/torchrun" | grep -q "torchrun (mock)" || fail "torch's console script does not run"
assert_eq "$("$PY" -c 'import torch; print(torch.version.hip)')" "$V2" "torch.version.hip"

# A pinned older nightly resolves the matching rocm packages (torch pins rocm[libraries]==V).
"$PY" -m pip install --quiet --index-url "$URL" --no-build-isolation "torch==2.10.0a0+rocm$V1" \
  || fail "pinning the older torch nightly failed"
assert_eq "$("$ROCM_SDK" version)" "$V1" "rocm-sdk version after pinning the older nightly"

echo "PASS: test_therock_mock"
