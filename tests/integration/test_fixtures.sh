#!/usr/bin/env bash
# The fixtures of the Python tests work, checked by tools nobody here wrote:
#  - tests/tools/make_wheel.py: pip installs its wheels (and refuses the broken ones for the reason they
#    were made broken), RECORD matches every member, output is byte-for-byte reproducible;
#  - lib/debian_base.sh: the Debian base image unpacks with umoci and its python3 runs in a chroot; the
#    standalone archive runs from /opt/python with Debian's own stdlib out of the way.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/debian_base.sh"
need umoci; need python3
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
MAKE_WHEEL=("python3" "$ROCKPACK_SOURCE_DIR/tests/tools/make_wheel.py")

# The host's pip, or the one Debian's python3-pip-whl ships (pip runs from its own wheel).
if python3 -m pip --version >/dev/null 2>&1; then
  PIP=(python3 -m pip)
else
  pip_whl=$(find /usr/share/python-wheels -name 'pip-*.whl' 2>/dev/null | head -n 1)
  [ -n "$pip_whl" ] || skip "no pip on the host (install python3-pip-whl)"
  PIP=(python3 "$pip_whl/pip")
fi
pip_install() { "${PIP[@]}" install --quiet --disable-pip-version-check --root-user-action=ignore --no-index --no-deps --no-compile "$@"; }

# verify_record WHEEL: every member is in RECORD with its sha256 and size; RECORD's own row is empty.
verify_record() {
  python3 - "$1" <<'PY'
import base64, csv, hashlib, io, sys, zipfile
zf = zipfile.ZipFile(sys.argv[1])
names = zf.namelist()
record = [n for n in names if n.endswith(".dist-info/RECORD")]
if len(record) != 1:
    sys.exit(f"{len(record)} RECORD files")
rows = {r[0]: r[1:] for r in csv.reader(io.StringIO(zf.read(record[0]).decode())) if r}
if rows.get(record[0]) != ["", ""]:
    sys.exit("RECORD's own row is not empty")
for name in names:
    if name == record[0]:
        continue
    if name not in rows:
        sys.exit(f"{name} is not in RECORD")
    data = zf.read(name)  # also checks the CRC
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    if rows[name] != [want, str(len(data))]:
        sys.exit(f"{name}: RECORD says {rows[name]}, content is {[want, str(len(data))]}")
if set(rows) != set(names):
    sys.exit(f"RECORD lists files not in the wheel: {sorted(set(rows) - set(names))}")
PY
}

# member WHEEL PATTERN: the content of the one member matching the fnmatch PATTERN.
member() {
  python3 -c 'import fnmatch, sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); [n] = [n for n in z.namelist() if fnmatch.fnmatch(n, sys.argv[2])]
sys.stdout.write(z.read(n).decode())' "$1" "$2"
}

cd "$WORK"
W="$WORK/wheels"
pytag=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
plat="linux_$(uname -m)"

# --- The end-to-end pair: installed by pip, the console script imports the dependency and prints.
mapfile -t demo < <("${MAKE_WHEEL[@]}" --demo "$W")
assert_eq "${#demo[@]}" "2" "demo wheels written"
assert_eq "$(basename "${demo[1]}")" "rp_demo_app-2.0.0-py3-none-any.whl" "demo app filename"
for whl in "${demo[@]}"; do verify_record "$whl" || fail "RECORD of $whl"; done
pip_install --target "$WORK/site" "${demo[@]}" || fail "pip refused the demo wheels"
out=$(PYTHONPATH="$WORK/site" "$WORK/site/bin/rp-demo")
assert_eq "$out" "rp-demo-app 2.0.0 using rp-demo-lib 1.0.1: hello from the image" "console script output"
head -n 1 "$WORK/site/bin/rp-demo-data" | grep -q '^#!python$' && fail "pip did not rewrite the #!python shebang"
assert_eq "$(PYTHONPATH="$WORK/site" "$WORK/site/bin/rp-demo-data")" "rp-demo-data data script ok" ".data script"
meta=$(PYTHONPATH="$WORK/site" python3 -c 'import importlib.metadata as m; d = m.distribution("rp-demo-app"); print(d.version, d.requires)')
assert_eq "$meta" "2.0.0 ['rp-demo-lib>=1.0']" "installed metadata"

# --- The hard cases pip must accept: platlib with an ABI tag, .data scripts/headers/data, extras,
# console and GUI scripts, a local version with '+', a blob member.
hard=$("${MAKE_WHEEL[@]}" "$W" rp-plat 2.10.0a0+rocm7.10.0 --platlib --tag "$pytag-$pytag-$plat" \
  --module $'rp_plat=def main():\n    return 0\n' --file "rp_plat/_ext.cpython-x.so=@/dev/null" \
  --data-script rp-plat-hello --header rp_plat.h --data share/rp-plat/readme.txt \
  --data-raw purelib/rp_plat_pure.py='X = 1' --extra cli:click --console-script 'rp-plat=rp_plat:main [cli]' \
  --gui-script 'rp-plat-gui=rp_plat:main' --requires 'rp-demo-lib>=1; python_version >= "3"' --size-mb 3)
assert_contains "$hard" "rp_plat-2.10.0a0+rocm7.10.0-$pytag-$pytag-$plat.whl" "local version in the filename"
verify_record "$hard" || fail "RECORD of $hard"
member "$hard" '*.dist-info/WHEEL' | grep -qx 'Root-Is-Purelib: false' || fail "platlib wheel says purelib"
member "$hard" '*.dist-info/METADATA' | grep -qxF 'Requires-Dist: click ; extra == "cli"' || fail "extra not in METADATA"
pip_install --target "$WORK/hard" "$hard" || fail "pip refused $hard"
assert_eq "$(stat -c %s "$WORK/hard/rp_plat/blob.bin")" "3145728" "blob size"
[ -f "$WORK/hard/rp_plat_pure.py" ] || fail ".data/purelib not installed"
[ -x "$WORK/hard/bin/rp-plat-gui" ] || fail "GUI script launcher missing"
# The blob is about half compressible, like a shared library, not all zeros nor all noise.
ratio=$(python3 -c 'import sys, zipfile; i = zipfile.ZipFile(sys.argv[1]).getinfo("rp_plat/blob.bin"); print(round(i.compress_size / i.file_size, 1))' "$hard")
assert_eq "$ratio" "0.5" "blob compression ratio"

# --- Reproducible: the same arguments give the same bytes.
again=$("${MAKE_WHEEL[@]}" "$WORK/again" rp-plat 2.10.0a0+rocm7.10.0 --platlib --tag "$pytag-$pytag-$plat" \
  --module $'rp_plat=def main():\n    return 0\n' --file "rp_plat/_ext.cpython-x.so=@/dev/null" \
  --data-script rp-plat-hello --header rp_plat.h --data share/rp-plat/readme.txt \
  --data-raw purelib/rp_plat_pure.py='X = 1' --extra cli:click --console-script 'rp-plat=rp_plat:main [cli]' \
  --gui-script 'rp-plat-gui=rp_plat:main' --requires 'rp-demo-lib>=1; python_version >= "3"' --size-mb 3)
cmp -s "$hard" "$again" || fail "make_wheel.py is not reproducible"

# --- The broken ones, refused by pip for the reason they were made broken.
evil=$("${MAKE_WHEEL[@]}" "$W" rp-evil 1.0 --bad-path ../evil)
verify_record "$evil" || fail "RECORD of $evil"  # only the path is wrong
mkdir "$WORK/evil-target"
err=$(pip_install --target "$WORK/evil-target/site" "$evil" 2>&1) && fail "pip installed a wheel with ../evil"
assert_contains "$err" "outside" "pip's reason for refusing ../evil"
[ ! -e "$WORK/evil-target/evil" ] || fail "../evil was written"

future=$("${MAKE_WHEEL[@]}" "$W" rp-future 1.0 --requires-python '>=4')
err=$(pip_install --target "$WORK/future" "$future" 2>&1) && fail "pip installed a wheel requiring Python 4"
assert_contains "$err" "requires a different Python" "requires-python"

mismatch=$("${MAKE_WHEEL[@]}" "$W" rp-mismatch 1.0 --metadata-name-mismatch)
member "$mismatch" '*.dist-info/METADATA' | grep -qx 'Name: rp-mismatch-other' || fail "METADATA name not changed"
verify_record "$mismatch" || fail "RECORD of $mismatch"  # only the name is wrong (pip 23 installs it)

wrong=$("${MAKE_WHEEL[@]}" "$W" rp-wrong 1.0 --wrong-record-hash)
verify_record "$wrong" 2>/dev/null && fail "RECORD check accepted wrong hashes (the check cannot fail?)"
nohash=$("${MAKE_WHEEL[@]}" "$W" rp-nohash 1.0 --no-record-hash)
assert_contains "$(member "$nohash" '*.dist-info/RECORD')" "rp_nohash.py,," "RECORD without hashes"

sdist=$("${MAKE_WHEEL[@]}" "$W" Rp.Sdist_Only 1.0 --sdist)
assert_eq "$(basename "$sdist")" "rp_sdist_only-1.0.tar.gz" "sdist filename"
assert_contains "$(tar -xzOf "$sdist" rp_sdist_only-1.0/PKG-INFO)" "Name: Rp.Sdist_Only" "sdist PKG-INFO"

# --- The Debian base: made once by debootstrap, then from the cache.
start=$SECONDS
rc=0; debian_python_base "$WORK/oci" || rc=$?
[ "$rc" -ne 77 ] || skip "debian_python_base cannot run here (see above)"
[ "$rc" -eq 0 ] || fail "debian_python_base failed ($rc)"
echo "debian_python_base: $((SECONDS - start)) s"
umoci unpack --image "$WORK/oci:base" "$WORK/bundle" >/dev/null
rootfs="$WORK/bundle/rootfs"
version=$(chroot "$rootfs" /usr/bin/python3 -c 'import sys; print(sys.version)')
assert_contains "$version" "3.11." "python3 in the chroot"
chroot "$rootfs" /usr/bin/python3 -c 'import ssl, sqlite3, ctypes, decimal, zlib, json, venv' \
  || fail "Debian's stdlib modules do not import"
[ -f "$rootfs/usr/lib/python3.11/EXTERNALLY-MANAGED" ] || fail "Debian's python is not marked EXTERNALLY-MANAGED"
assert_eq "$(ls -A "$rootfs/dev" "$rootfs/proc" "$rootfs/sys")" "$(printf '%s:\n\n%s:\n\n%s:' "$rootfs/dev" "$rootfs/proc" "$rootfs/sys")" "empty /dev /proc /sys"
[ -z "$(find "$rootfs/var/lib/apt/lists" "$rootfs/var/log" -type f)" ] || fail "apt lists or logs left in the image"
if [ -e "$rootfs/etc/resolv.conf" ] || [ -e "$rootfs/etc/hostname" ]; then fail "the build host's identity is in the image"; fi
assert_eq "$(stat -c %a "$rootfs/usr/bin/su")" "4755" "setuid bit of su"
assert_eq "$(stat -c %i "$rootfs/usr/bin/perl")" "$(stat -c %i "$rootfs/usr/bin/perl5.36.0")" "hardlinks kept"
# Debian's python imports what pip put next to it from the generated wheels.
pip_install --target "$rootfs/opt/demo" "${demo[@]}" || fail "pip into the rootfs"
out=$(chroot "$rootfs" /usr/bin/env PYTHONPATH=/opt/demo /usr/bin/python3 -c 'from rp_demo_app.cli import main; main()')
assert_contains "$out" "using rp-demo-lib 1.0.1: hello from the image" "demo in Debian's python"

# The layout is usable as a base by rockpack itself.
cat >"$WORK/on-base.yaml" <<EOF
name: on-base
base: oci:$WORK/oci:base
files:
  - content: "marker"
    dest: /etc/rp-marker
EOF
"$ROCKPACK" --quiet build "$WORK/on-base.yaml" -o "oci:$WORK/on-base:v1" >/dev/null || fail "build on the Debian base"
layers=$("$ROCKPACK" inspect --json "oci:$WORK/on-base:v1" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["layers"]))')
assert_eq "$layers" "2" "base layer + marker layer"

start=$SECONDS
rc=0; debian_python_base "$WORK/oci2" || rc=$?
assert_eq "$rc" "0" "second debian_python_base"
echo "debian_python_base from the cache: $((SECONDS - start)) s"

# --- The standalone archive runs from /opt/python with Debian's stdlib out of the way.
start=$SECONDS
debian_python_standalone_archive "$WORK/python.tar.gz" || fail "debian_python_standalone_archive"
echo "debian_python_standalone_archive: $((SECONDS - start)) s"
listing=$(tar -tzvf "$WORK/python.tar.gz")
for entry in python/bin/python3.11 "python/bin/python3 -> python3.11" python/lib/python3.11/os.py \
  python/lib/python3.11/lib-dynload/ python/lib/python3.11/site-packages/ python/lib/python3.11/_sysconfigdata_; do
  assert_contains "$listing" "$entry" "archive member"
done
! tar -tzf "$WORK/python.tar.gz" | grep -qv '^python/' || fail "archive has entries outside python/"
! grep -q EXTERNALLY-MANAGED <<<"$listing" || fail "the standalone archive carries Debian's PEP 668 marker"
debian_python_standalone_archive "$WORK/python2.tar.gz"
cmp -s "$WORK/python.tar.gz" "$WORK/python2.tar.gz" || fail "the standalone archive is not reproducible"
tar -xzf "$WORK/python.tar.gz" -C "$rootfs/opt"
mv "$rootfs/usr/lib/python3.11" "$rootfs/usr/lib/python3.11.hidden"
facts=$(chroot "$rootfs" /opt/python/bin/python3 -c 'import sys, os, ssl, json; print(json.dumps([sys.prefix, sys.exec_prefix, os.__file__, ssl.__file__]))')
assert_eq "$facts" '["/opt/python", "/opt/python", "/opt/python/lib/python3.11/os.py", "/opt/python/lib/python3.11/ssl.py"]' "standalone prefix and stdlib"
# Its own site-packages is on sys.path, as in python-build-standalone.
pip_install --target "$rootfs/opt/python/lib/python3.11/site-packages" "${demo[@]}" || fail "pip into site-packages"
out=$(chroot "$rootfs" /opt/python/bin/python3 -c 'from rp_demo_app.cli import main; main()')
assert_contains "$out" "hello from the image" "demo in the standalone python"
echo "ok"
