#!/usr/bin/env bash
# Python in the image, end to end, checked inside the image by the image's own Python:
#  - a Debian 12 base with python3 (debootstrap), pip + setuptools + wheel (Debian's real wheels) and
#    a generated package with a console script, installed into a venv from a loopback index;
#  - umoci unpack + chroot: the imports work, the console script and a `#!python` data script run,
#    `python -m pip list` shows every installed version and `python -m pip check` is clean;
#  - `--resolved` records every package with its file, URL, sha256 and index;
#  - `inspect --python` lists the packages; a second build downloads nothing and gives the same digest;
#  - a standalone interpreter archive unpacked at /opt/python, with packages installed into its prefix.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
need umoci
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
ls /usr/share/python-wheels/pip-*.whl >/dev/null 2>&1 || skip "Debian's python3-pip-whl is not installed"

python_base

mkdir -p "$WORK/wheels"
python3 "$ROCKPACK_SOURCE_DIR/tests/tools/make_wheel.py" --demo "$WORK/wheels" >/dev/null
cp /usr/share/python-wheels/pip-*.whl /usr/share/python-wheels/setuptools-*.whl \
  /usr/share/python-wheels/wheel-*.whl "$WORK/wheels/"
start_index main "$WORK/wheels"
INDEX_URL="$(index_url main)/simple/"

cat >"$WORK/app.yaml" <<EOF
name: pyapp
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $INDEX_URL
  packages:
    - pip
    - setuptools
    - wheel
    - rp-demo-app
tags: [latest]
EOF

digest1=$(build_digest "$WORK/app.yaml" -o "oci:$WORK/out:latest" --resolved "$WORK/resolved.json")

# --- inside the image ---------------------------------------------------------------------------
umoci unpack --image "$WORK/out:latest" "$WORK/bundle" >/dev/null 2>&1 || fail "umoci cannot unpack the image"
ROOT="$WORK/bundle/rootfs"
in_image() { chroot "$ROOT" /usr/bin/env -i PATH=/opt/venv/bin:/usr/bin:/bin "$@"; }

out=$(in_image rp-demo) || fail "the console script does not run"
assert_eq "$out" "rp-demo-app 2.0.0 using rp-demo-lib 1.0.1: hello from the image" "console script output"
assert_eq "$(head -n 1 "$ROOT/opt/venv/bin/rp-demo-data")" "#!/opt/venv/bin/python" "#!python rewritten"
in_image rp-demo-data >/dev/null || fail "the data script does not run"
# setuptools first: its distutils shim must come before pip pulls in Debian's partial distutils
# (the same happens in a venv pip made on a Debian without python3-distutils).
in_image python -c 'import setuptools, rp_demo_app, rp_demo_lib, pip, wheel' || fail "imports fail in the venv"
assert_eq "$(in_image python -c 'import sys; print(sys.prefix)')" "/opt/venv" "the venv is the interpreter's prefix"

pip_list=$(in_image python -m pip list --disable-pip-version-check --format=freeze) || fail "pip list fails"
for want in pip==23.0.1 rp-demo-app==2.0.0 rp-demo-lib==1.0.1; do
  assert_contains "$pip_list" "$want" "pip list"
done
setuptools_version=$(ls "$WORK/wheels" | sed -n 's/^setuptools-\([^-]*\)-.*/\1/p')
assert_contains "$pip_list" "setuptools==$setuptools_version" "pip list"
check=$(in_image python -m pip check --disable-pip-version-check) || fail "pip check is not clean: $check"
assert_contains "$check" "No broken requirements found" "pip check"

# What pip sees of how the packages came in.
site="$ROOT/opt/venv/lib/python3.11/site-packages"
assert_eq "$(cat "$site/rp_demo_app-2.0.0.dist-info/INSTALLER")" "rockpack" "INSTALLER"
[ -e "$site/rp_demo_app-2.0.0.dist-info/REQUESTED" ] || fail "REQUESTED missing for a package the recipe named"
[ ! -e "$site/rp_demo_lib-1.0.1.dist-info/REQUESTED" ] || fail "REQUESTED written for a dependency"
# The image's activate script works as the standard one does.
act=$(chroot "$ROOT" /bin/sh -c '. /opt/venv/bin/activate && command -v python && echo "$VIRTUAL_ENV"')
assert_eq "$act" "/opt/venv/bin/python
/opt/venv" "activate"

# --- config, resolution, inspect --------------------------------------------------------------
env_json=$("$ROCKPACK" inspect --json "oci:$WORK/out:latest" | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["config"]["Env"]))')
assert_contains "$env_json" "VIRTUAL_ENV=/opt/venv" "image Env"
assert_contains "$env_json" "PATH=/opt/venv/bin:" "image Env"

python3 - "$WORK/resolved.json" "$WORK/wheels" "$INDEX_URL" <<'PY' || fail "resolved.json is not what was installed"
import hashlib, json, os, sys
r = json.load(open(sys.argv[1]))
pkgs = {p["name"]: p for p in r["python"]["packages"]}
assert sorted(pkgs) == ["pip", "rp-demo-app", "rp-demo-lib", "setuptools", "wheel"], sorted(pkgs)
for p in pkgs.values():
    path = os.path.join(sys.argv[2], p["filename"])
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == p["sha256"], p
    assert p["index"] == sys.argv[3], p
    assert p["url"].endswith(p["filename"].replace("+", "%2B")), p
assert pkgs["rp-demo-app"]["requested"] and not pkgs["rp-demo-lib"]["requested"]
assert pkgs["rp-demo-lib"]["required_by"] == ["rp-demo-app"]
assert r["python"]["interpreter"]["version"].startswith("3.11."), r["python"]["interpreter"]
assert r["python"]["interpreter"]["libc"] == "glibc"
PY

listing=$("$ROCKPACK" inspect --python "oci:$WORK/out:latest")
assert_contains "$listing" "/opt/venv/lib/python3.11/site-packages" "inspect --python"
for want in "rp-demo-app" "rp-demo-lib" "setuptools"; do assert_contains "$listing" "$want" "inspect --python"; done
n=$("$ROCKPACK" inspect --python --json "oci:$WORK/out:latest" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["python_packages"]))')
assert_eq "$n" "5" "packages listed by inspect --python --json"

# --- a second build: nothing downloaded, same image -------------------------------------------
before=$(index_file_requests main rp_demo_app-2.0.0-py3-none-any.whl)
digest2=$(build_digest "$WORK/app.yaml" -o "oci:$WORK/out2:latest")
assert_eq "$digest2" "$digest1" "rebuild digest"
after=$(index_file_requests main rp_demo_app-2.0.0-py3-none-any.whl)
assert_eq "$after" "$before" "wheel downloads during the rebuild"

# --- a standalone interpreter ------------------------------------------------------------------
rc=0
debian_python_standalone_archive "$WORK/python.tar.gz" || rc=$?
[ "$rc" -eq 0 ] || fail "debian_python_standalone_archive failed ($rc)"
cat >"$WORK/standalone.yaml" <<EOF
name: pystandalone
base: oci:$BASE:base
python:
  standalone:
    path: python.tar.gz
    sha256: $(sha256sum "$WORK/python.tar.gz" | cut -d' ' -f1)
    prefix: /opt/python
  indexes:
    - url: $INDEX_URL
  packages: [rp-demo-app]
EOF
build_digest "$WORK/standalone.yaml" -o "oci:$WORK/sa:latest" >/dev/null
umoci unpack --image "$WORK/sa:latest" "$WORK/sa-bundle" >/dev/null 2>&1 || fail "umoci cannot unpack the standalone image"
SA="$WORK/sa-bundle/rootfs"
[ -x "$SA/opt/python/bin/python3.11" ] || fail "the standalone interpreter is not at /opt/python"
assert_eq "$(head -n 1 "$SA/opt/python/bin/rp-demo")" "#!/opt/python/bin/python3.11" "launcher shebang"
out=$(chroot "$SA" /opt/python/bin/rp-demo) || fail "the console script does not run on the standalone python"
assert_contains "$out" "hello from the image" "standalone console script"
[ -d "$SA/opt/python/lib/python3.11/site-packages/rp_demo_lib-1.0.1.dist-info" ] || fail "not installed into the standalone prefix"
sa_env=$("$ROCKPACK" inspect --json "oci:$WORK/sa:latest" | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["config"]["Env"]))')
assert_contains "$sa_env" "PATH=/opt/python/bin:" "standalone PATH"

echo "ok: python end to end"
