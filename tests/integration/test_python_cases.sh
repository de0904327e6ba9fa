#!/usr/bin/env bash
# The hard cases of "Python in the image", built into two images on the Debian 12 + python3 base and
# checked in the unpacked rootfs (umoci unpack, chroot to run things):
#   image 1 (venv /opt/venv, first-index, unpacked and run):
#     tag priority (cp311-cp311-linux_<arch> platlib over py3-none-any of the same version, cp312 and
#     older versions ignored), .data/scripts with #!python, headers, data, console/GUI scripts and
#     extras, markers, local versions with '+', first-index over two indexes (HTML and PEP 691 JSON),
#     an index pinned by `packages:`, yanked files, REQUESTED/INSTALLER, RECORD against the files,
#     requirements files with -c and --hash, find-links, a direct wheel path with sha256;
#     then rebuilt with the same cache: nothing downloaded, same digest.
#   image 2 (unsafe-best-match, not unpacked): the better version from the second index, an index
#     without metadata files (range requests on a 100 MiB wheel), basic auth from env variables and
#     from netrc, the passwords nowhere in outputs.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/python_fixtures.sh"
need umoci; need chroot
[ "$(id -u)" -eq 0 ] || skip "umoci unpack and chroot need root"
ARCH=$(uname -m)
[ "$ARCH" = x86_64 ] || skip "the cases use the interpreter's x86_64 tags (machine is $ARCH)"
export SOURCE_DATE_EPOCH=1700000000
python_base

# ---- wheels ----------------------------------------------------------------------------------
A="$WORK/idx-a"; B="$WORK/idx-b"; P="$WORK/idx-p"; C="$WORK/idx-c"; AUTH1="$WORK/idx-auth1"; AUTH2="$WORK/idx-auth2"
PROJ="$WORK/proj"
mkdir -p "$A" "$B" "$P" "$C" "$AUTH1" "$AUTH2" "$PROJ/fl" "$PROJ/direct"

# Tag priority: for 1.0 the platlib cp311 wheel beats the py3-none-any one; 1.1 is cp312 only.
wheel "$A" rp-plat 1.0 --platlib --tag "cp311-cp311-linux_$ARCH" \
  --module "rp_plat=KIND = 'cp311'" --file "rp_plat/_native.cpython-311-$ARCH-linux-gnu.so=not really ELF" >/dev/null
wheel "$A" rp-plat 1.0 --module "rp_plat=KIND = 'pure'" >/dev/null
wheel "$A" rp-plat 1.1 --platlib --tag "cp312-cp312-linux_$ARCH" --module "rp_plat=KIND = 'cp312'" >/dev/null
wheel "$A" rp-plat 0.9 --module "rp_plat=KIND = 'old'" >/dev/null
# Scheme keys.
wheel "$A" rp-scripts 1.0 --data-script rp-hello --header rp_scripts.h --data share/rp-scripts/notes.txt >/dev/null
# Entry points; one script needs the extra 'cli' (its dependency must come with rp-ep[cli]).
wheel "$A" rp-ep 1.0 --extra cli:rp-cli-dep \
  --module "rp_ep=def main():
    print('rp-ep main ok')

def cli():
    import rp_cli_dep
    print('rp-ep cli ok with rp-cli-dep ' + rp_cli_dep.__version__)
" \
  --console-script "rp-ep=rp_ep:main" --console-script "rp-ep-cli=rp_ep:cli [cli]" \
  --gui-script "rp-ep-gui=rp_ep:main" >/dev/null
wheel "$A" rp-cli-dep 1.2 >/dev/null
# Markers.
wheel "$A" rp-markers 1.0 --requires "rp-py2only ; python_version < '3.0'" \
  --requires "rp-archdep ; platform_machine == '$ARCH'" >/dev/null
wheel "$A" rp-py2only 1.0 >/dev/null
wheel "$A" rp-archdep 1.0 >/dev/null
# Local versions: 7.10 > 7.1 numerically, and any local version > the public one.
for v in 0.9+zzz 1.0 1.0+rocm7.1 1.0+rocm7.10 1.0+rocm7.9; do wheel "$A" rp-local "$v" >/dev/null; done
# Two indexes with the same name; a third pinned to one package.
wheel "$A" rp-dup 1.0 >/dev/null
wheel "$B" rp-dup 2.0 >/dev/null
wheel "$B" rp-bonly 1.0 >/dev/null
wheel "$A" rp-pinned 3.0 >/dev/null
wheel "$P" rp-pinned 1.5 >/dev/null
# Yanked: 2.0 of both is yanked; only the == pin may take it.
for n in rp-yank rp-yankpin; do wheel "$A" $n 1.0 >/dev/null; wheel "$A" $n 2.0 >/dev/null; done
# Requirements files: constraints, hashes.
REQ_WHL=$(wheel "$A" rp-req 1.0)
wheel "$A" rp-req 1.1 >/dev/null
wheel "$A" rp-con 1.0 >/dev/null
wheel "$A" rp-con 2.0 >/dev/null
wheel "$A" rp-unused 1.0 >/dev/null
# find-links and a direct wheel.
wheel "$PROJ/fl" rp-fl 1.0 >/dev/null
DIRECT_WHL=$(wheel "$PROJ/direct" rp-direct 1.0 --console-script "rp-direct=rp_direct:main" \
  --module "rp_direct=def main():
    print('rp-direct ok')
")
# Index without metadata files: a big incompressible wheel.
BIG_WHL=$(wheel "$C" rp-big 1.0 --size-mb 101 --blob-kind random --compresslevel 0)
BIG_SIZE=$(stat -c %s "$BIG_WHL")
# Indexes behind basic auth.
wheel "$AUTH1" rp-auth-env 1.0 >/dev/null
wheel "$AUTH2" rp-auth-netrc 1.0 >/dev/null

cat >"$PROJ/constraints.txt" <<EOF
rp-con<2.0
rp-unused==1.0
EOF
cat >"$PROJ/requirements.txt" <<EOF
# constraints limit rp-con and install nothing themselves
-c constraints.txt
rp-con
EOF
cat >"$PROJ/hashed.txt" <<EOF
rp-req==1.0 \\
    --hash=sha256:$(printf '0%.0s' $(seq 64)) \\
    --hash=sha256:$(sha256_of "$REQ_WHL")
EOF

# ---- servers ---------------------------------------------------------------------------------
start_index a "$A" --format html --yank "rp_yank-2.0-py3-none-any.whl:broken" \
  --yank "rp_yankpin-2.0-py3-none-any.whl:broken"
start_index b "$B" --format json
start_index p "$P" --format json
start_index c "$C" --no-metadata
PW_ENV="env-S3cret-pw-4c1f"
PW_NETRC="netrc-S3cret-pw-9e7a"
start_index auth1 "$AUTH1" --basic-auth "envuser:$PW_ENV"
start_index auth2 "$AUTH2" --basic-auth "netrcuser:$PW_NETRC"

# ---- image 1 ---------------------------------------------------------------------------------
cat >"$PROJ/one.yaml" <<EOF
name: py-cases-one
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $(index_url a)/simple/
    - url: $(index_url b)/simple/
    - url: $(index_url p)/simple/
      packages: [rp-pinned]
  find_links: [fl]
  packages:
    - rp-plat
    - rp-scripts
    - "rp-ep[cli]"
    - rp-markers
    - rp-local
    - rp-dup
    - rp-bonly
    - rp-pinned
    - rp-yank
    - rp-yankpin==2.0
    - rp-fl
  requirements: [requirements.txt, hashed.txt]
  wheels:
    - path: direct/$(basename "$DIRECT_WHL")
      sha256: $(sha256_of "$DIRECT_WHL")
EOF
"$ROCKPACK" build "$PROJ/one.yaml" -o "oci:$WORK/one:latest" --resolved "$WORK/one.json" \
  --cache-dir "$WORK/cache" >"$WORK/one.out" 2>"$WORK/one.err" \
  || fail "image 1 did not build: $(cat "$WORK/one.err")"
DIGEST1=$(tail -n 1 "$WORK/one.out")

umoci unpack --image "$WORK/one:latest" "$WORK/one-bundle" >/dev/null 2>&1 || fail "umoci unpack of image 1 failed"
R="$WORK/one-bundle/rootfs"
SP="$R/opt/venv/lib/python3.11/site-packages"
run() { chroot "$R" "$@"; }
version_of() { json_get "$WORK/one.json" "[p['version'] for p in d['python']['packages'] if p['name'] == '$1']"; }

# Tag priority.
assert_eq "$(version_of rp-plat)" "['1.0']" "rp-plat version"
assert_eq "$(json_get "$WORK/one.json" "[p['filename'] for p in d['python']['packages'] if p['name'] == 'rp-plat'][0]")" \
  "rp_plat-1.0-cp311-cp311-linux_$ARCH.whl" "rp-plat wheel chosen by tag"
assert_eq "$(run /opt/venv/bin/python -c 'import rp_plat; print(rp_plat.KIND)')" "cp311" "rp_plat imported"
[ -f "$SP/rp_plat/_native.cpython-311-$ARCH-linux-gnu.so" ] || fail "platlib member not installed"
grep -qx "Root-Is-Purelib: false" "$SP/rp_plat-1.0.dist-info/WHEEL" || fail "rp-plat's WHEEL is not the platlib one"

# .data: scripts with #!python rewritten, headers, data.
assert_eq "$(head -n 1 "$R/opt/venv/bin/rp-hello")" "#!/opt/venv/bin/python" "rp-hello shebang"
[ -x "$R/opt/venv/bin/rp-hello" ] || fail "rp-hello is not executable"
assert_eq "$(run /opt/venv/bin/rp-hello)" "rp-hello data script ok" "rp-hello output"
HDR="$R/opt/venv/include/site/python3.11/rp-scripts/rp_scripts.h"
[ -f "$HDR" ] || fail "header not at $HDR: $(cd "$R/opt/venv" && find include)"
grep -q "RP_TEST_HEADER" "$HDR" || fail "header content"
[ -f "$R/opt/venv/share/rp-scripts/notes.txt" ] || fail ".data/data file not under the venv"
[ ! -e "$SP/rp_scripts-1.0.data" ] || fail "the .data directory itself was installed"

# Entry points and extras.
assert_eq "$(run /opt/venv/bin/rp-ep)" "rp-ep main ok" "rp-ep console script"
assert_eq "$(run /opt/venv/bin/rp-ep-cli)" "rp-ep cli ok with rp-cli-dep 1.2" "rp-ep-cli console script"
[ -x "$R/opt/venv/bin/rp-ep-gui" ] || fail "no GUI script launcher"
assert_eq "$(head -n 1 "$R/opt/venv/bin/rp-ep")" "#!/opt/venv/bin/python" "launcher shebang"
assert_eq "$(run /opt/venv/bin/rp-direct)" "rp-direct ok" "direct wheel's console script"

# Markers.
[ -d "$SP/rp_archdep-1.0.dist-info" ] || fail "rp-archdep (platform_machine == '$ARCH') not installed"
[ ! -e "$SP/rp_py2only-1.0.dist-info" ] || fail "rp-py2only (python_version < '3.0') was installed"
assert_eq "$(version_of rp-py2only)" "[]" "rp-py2only in the resolution"

# Local versions.
assert_eq "$(version_of rp-local)" "['1.0+rocm7.10']" "rp-local version"
[ -d "$SP/rp_local-1.0+rocm7.10.dist-info" ] || fail "rp-local's dist-info: $(cd "$SP" && echo rp_local*)"

# Indexes: first-index, the JSON index used for what only it has, the pinned index.
assert_eq "$(version_of rp-dup)" "['1.0']" "rp-dup from the first index"
assert_eq "$(version_of rp-bonly)" "['1.0']" "rp-bonly from the JSON index"
assert_eq "$(version_of rp-pinned)" "['1.5']" "rp-pinned from the index that pins it"
idx_of() { json_get "$WORK/one.json" "[p['index'] for p in d['python']['packages'] if p['name'] == '$1'][0]"; }
assert_eq "$(idx_of rp-dup)" "$(index_url a)/simple/" "rp-dup's index"
assert_eq "$(idx_of rp-bonly)" "$(index_url b)/simple/" "rp-bonly's index"
assert_eq "$(idx_of rp-pinned)" "$(index_url p)/simple/" "rp-pinned's index"
layer_of() { json_get "$WORK/one.json" "[p['layer'] for p in d['python']['packages'] if p['name'] == '$1'][0]"; }
assert_eq "$(layer_of rp-dup)" "python" "layer of a first-index package"
assert_eq "$(layer_of rp-bonly)" "python-2" "layer of a second-index package"
assert_eq "$(layer_of rp-direct)" "python-local" "layer of a direct wheel"
# The JSON index was asked in JSON: its pages went out (the server answers JSON only).
python3 -c 'import json,sys; s=json.load(sys.stdin)["requests"]; sys.exit(0 if s.get("/simple/rp-bonly/") else 1)' \
  <<<"$(index_stats b)" || fail "the JSON index was not asked for rp-bonly: $(index_stats b)"

# Yanked.
assert_eq "$(version_of rp-yank)" "['1.0']" "rp-yank skips the yanked 2.0"
assert_eq "$(version_of rp-yankpin)" "['2.0']" "rp-yankpin==2.0 takes the yanked file"

# Requirements files, constraints, hashes, find-links, direct wheel.
assert_eq "$(version_of rp-con)" "['1.0']" "rp-con limited by the constraints file"
assert_eq "$(version_of rp-unused)" "[]" "a constraint alone installs nothing"
[ ! -e "$SP/rp_unused-1.0.dist-info" ] || fail "rp-unused installed from a constraint"
assert_eq "$(version_of rp-req)" "['1.0']" "rp-req pinned with --hash"
assert_eq "$(version_of rp-fl)" "['1.0']" "rp-fl from find-links"
assert_eq "$(version_of rp-direct)" "['1.0']" "rp-direct from its path"

# REQUESTED only for packages the recipe names (packages, requirements files, wheels), INSTALLER.
for d in "$SP"/*.dist-info; do
  assert_eq "$(cat "$d/INSTALLER")" "rockpack" "INSTALLER of $(basename "$d")"
done
for n in rp_plat-1.0 rp_ep-1.0 rp_markers-1.0 rp_con-1.0 rp_req-1.0 rp_fl-1.0 rp_direct-1.0 rp_yankpin-2.0; do
  [ -f "$SP/$n.dist-info/REQUESTED" ] || fail "$n was named by the recipe but has no REQUESTED"
done
for n in rp_cli_dep-1.2 rp_archdep-1.0; do
  [ ! -e "$SP/$n.dist-info/REQUESTED" ] || fail "$n is only a dependency but has REQUESTED"
done

# RECORD: every row's hash and size match the installed file, and every file the packages
# installed into the venv is listed in some RECORD (the venv skeleton aside).
python3 - "$R" /opt/venv <<'PY' || fail "RECORD check failed"
import base64, csv, hashlib, os, sys
root, venv = sys.argv[1], sys.argv[2]
site = os.path.join(root + venv, "lib/python3.11/site-packages")
listed, errors = set(), []
for d in sorted(os.listdir(site)):
    if not d.endswith(".dist-info"):
        continue
    with open(os.path.join(site, d, "RECORD"), newline="") as f:
        for row in csv.reader(f):
            path, digest, size = row
            full = os.path.normpath(os.path.join(site, path))
            if not full.startswith(root + venv + "/"):
                errors.append(f"{d}: {path} leaves the venv")
                continue
            listed.add(full)
            if not os.path.isfile(full):
                errors.append(f"{d}: {path} is listed but not installed")
                continue
            if path.endswith(".dist-info/RECORD"):
                continue
            if not digest:
                errors.append(f"{d}: {path} has no hash")
                continue
            data = open(full, "rb").read()
            algo, _, want = digest.partition("=")
            got = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()
            if got != want or int(size) != len(data):
                errors.append(f"{d}: {path} hash/size mismatch")
skeleton = {"pyvenv.cfg", "bin/python", "bin/python3", "bin/python3.11", "bin/activate", "bin/activate.fish",
            "bin/activate.csh", "lib64"}
for dirpath, dirs, files in os.walk(root + venv):
    for name in files + [x for x in dirs if os.path.islink(os.path.join(dirpath, x))]:
        full = os.path.join(dirpath, name)
        rel = os.path.relpath(full, root + venv)
        if rel not in skeleton and full not in listed:
            errors.append(f"{rel} is installed but in no RECORD")
if len(listed) < 40:
    errors.append(f"only {len(listed)} RECORD rows")
print("\n".join(errors), file=sys.stderr)
sys.exit(1 if errors else 0)
PY

# The image's Python sees every distribution with its version (this venv has no pip to ask).
LIST=$(run /opt/venv/bin/python -c 'import importlib.metadata as m; print(sorted(d.metadata["Name"] + "==" + d.version for d in m.distributions()))')
assert_contains "$LIST" "rp-local==1.0+rocm7.10" "importlib.metadata in the image"
assert_contains "$LIST" "rp-cli-dep==1.2" "importlib.metadata in the image"

# ---- rebuild with the same cache: nothing downloaded, the same image --------------------------
for s in a b p; do reset_stats $s; done
"$ROCKPACK" build "$PROJ/one.yaml" -o "oci:$WORK/one-again:latest" --cache-dir "$WORK/cache" \
  >"$WORK/again.out" 2>"$WORK/again.err" || fail "rebuild failed: $(cat "$WORK/again.err")"
assert_eq "$(tail -n 1 "$WORK/again.out")" "$DIGEST1" "digest of the rebuild"
for s in a b p; do
  if grep -q '"/files/[^"]*\.whl"' <<<"$(index_stats $s)"; then fail "rebuild downloaded from $s: $(index_stats $s)"; fi
done
assert_contains "$(cat "$WORK/again.err")" "0 wheels downloaded" "rebuild log"

# ---- image 2 ---------------------------------------------------------------------------------
printf 'machine 127.0.0.1\nlogin netrcuser\npassword %s\n' "$PW_NETRC" >"$WORK/netrc"
chmod 600 "$WORK/netrc"
cat >"$PROJ/two.yaml" <<EOF
name: py-cases-two
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  index_strategy: unsafe-best-match
  indexes:
    - url: $(index_url a)/simple/
    - url: $(index_url b)/simple/
    - url: $(index_url c)/simple/
    - url: $(index_url auth1)/simple/
      username_env: RP_TEST_USER
      password_env: RP_TEST_PASS
    - url: $(index_url auth2)/simple/
      netrc: true
  packages: [rp-dup, rp-big, rp-auth-env, rp-auth-netrc]
EOF
RP_TEST_USER=envuser RP_TEST_PASS="$PW_ENV" NETRC="$WORK/netrc" \
  "$ROCKPACK" -v build "$PROJ/two.yaml" -o "oci:$WORK/two:latest" --resolved "$WORK/two.json" \
  --metadata-file "$WORK/two-meta.json" --cache-dir "$WORK/cache" --compression none \
  >"$WORK/two.out" 2>"$WORK/two.err" || fail "image 2 did not build: $(cat "$WORK/two.err")"
version2() { json_get "$WORK/two.json" "[p['version'] for p in d['python']['packages'] if p['name'] == '$1']"; }
assert_eq "$(version2 rp-dup)" "['2.0']" "unsafe-best-match takes the higher rp-dup"
assert_eq "$(version2 rp-big)" "['1.0']" "rp-big"
assert_eq "$(version2 rp-auth-env)" "['1.0']" "rp-auth-env"
assert_eq "$(version2 rp-auth-netrc)" "['1.0']" "rp-auth-netrc"

# The big wheel: resolution read a little of it with range requests, the download took it once.
BIG_PATH="/files/$(basename "$BIG_WHL")"
read -r BIG_REQS BIG_BYTES META_REQS < <(python3 -c '
import json, sys
s = json.loads(sys.argv[1]); p = sys.argv[2]
print(s["requests"].get(p, 0), s["bytes"].get(p, 0), s["requests"].get(p + ".metadata", 0))' "$(index_stats c)" "$BIG_PATH")
[ "$META_REQS" -eq 0 ] || fail "asked $META_REQS time(s) for a metadata file the index does not announce"
[ "$BIG_REQS" -ge 2 ] || fail "expected range requests and one download of $BIG_PATH, got $BIG_REQS requests"
[ "$BIG_BYTES" -ge "$BIG_SIZE" ] || fail "the big wheel was not downloaded whole ($BIG_BYTES of $BIG_SIZE bytes)"
[ "$((BIG_BYTES - BIG_SIZE))" -lt 1048576 ] \
  || fail "resolving the big wheel read $((BIG_BYTES - BIG_SIZE)) bytes of it (more than 1 MiB)"

# The passwords are nowhere: build output, resolution, metadata, any blob of the layout.
# Also as Basic credentials (base64 of user:password), as an Authorization header would carry them.
for pw in "$PW_ENV" "$PW_NETRC" "$(printf 'envuser:%s' "$PW_ENV" | base64 -w0)" \
  "$(printf 'netrcuser:%s' "$PW_NETRC" | base64 -w0)"; do
  for f in "$WORK/two.out" "$WORK/two.err" "$WORK/two.json" "$WORK/two-meta.json" "$WORK/two/index.json"; do
    if grep -qaF -- "$pw" "$f"; then fail "a password appears in $f"; fi
  done
  for blob in "$WORK"/two/blobs/sha256/*; do
    if zcat -f "$blob" 2>/dev/null | grep -qaF -- "$pw"; then fail "a password appears in blob $blob"; fi
  done
done
# Sanity for the grep above: the user names and the auth index URLs are in the outputs it searched.
assert_contains "$(cat "$WORK/two.json")" "$(index_url auth1)/simple/" "auth index URL in the resolution"

echo "PASS: test_python_cases"
