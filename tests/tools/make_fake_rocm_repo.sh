#!/usr/bin/env bash
# A fake, SIGNED copy of AMD's ROCm apt repository (repo.radeon.com/rocm/apt/<version>), generated at
# test time for the traditional-apt-path recipe (recipes/pytorch-rocm-apt-ci.yaml,
# tests/integration/test_rocm_apt_recipe.sh). Nothing binary is checked in.
#
#   make_fake_rocm_repo.sh OUT_DIR [ROCM_VERSION]        (ROCM_VERSION default 6.4.1, MAJOR.MINOR.PATCH)
#
# writes into OUT_DIR (anything from an earlier run is replaced, the keys are kept):
#   keys/test.{asc,gpg,fpr,secret.asc}   the key that signs the repository  } made by
#   keys/wrong.{asc,gpg,fpr,secret.asc}  an unrelated key, for negative tests } tests/integration/lib/apt_repo.sh
#   rocm/apt/<ver>/                      the repository, laid out as on repo.radeon.com:
#     dists/jammy/{Release,InRelease,Release.gpg}     Origin/Label repo.radeon.com, suite = codename jammy,
#     dists/jammy/main/binary-amd64/Packages{,.gz}    architecture amd64 only, no by-hash, no Valid-Until
#     pool/main/<l>/<name>/<name>_<version>_amd64.deb
#   packages.txt                         NAME=VERSION of every package, one a line, sorted
#   README                               the same with each package's dependencies
# Serve OUT_DIR (tests/integration/lib/apt_repo.sh: apt_repo_serve); the source is then
#   deb [signed-by=OUT_DIR/keys/test.gpg] http://127.0.0.1:PORT/rocm/apt/<ver> jammy main
#
# The packages mirror the real ones' names, relations and layout (ROCm 6.4, checked against the
# jammy Packages index of repo.radeon.com): every version is COMPONENT_VERSION.<code>-83~22.04 with
# <code> = MAJOR*10000 + MINOR*100 + PATCH (60401 for 6.4.1); the metapackages rocm-dev, rocm-libs and
# rocm-utils pin their members with (= version); files live under /opt/rocm-<ver>/ (bin/, lib/*.so*,
# include/, lib/llvm/, amdgcn/bitcode/, .info/version). The contents are stand-ins: the "libraries"
# are small text files with the real names and SONAME links, bin/hipcc, bin/hipconfig, clang,
# rocminfo, rocm-smi and amd-smi are /bin/sh scripts that print what the real tools print for
# --version. Dependencies on distribution packages (libc6, libstdc++6, python3, python3-yaml,
# libnuma1, libelf1, libdrm-amdgpu1, kmod) are kept, so they must come from the base image or a
# distribution source, as with the real repository. Left out, to keep the fixture small: the
# per-version packages (rocm-core6.4.1, ...), -rpath variants, the ~100 other library packages
# (MIOpen, rocFFT, rocSOLVER, ...) and the dependencies of rocm-cmake on cmake and of rocm-llvm on
# libstdc++-11-dev/libgcc-11-dev.
#
# /opt/rocm: as the real rocm-core, this one makes /opt/rocm -> /etc/alternatives/rocm ->
# /opt/rocm-<ver> in its postinst, with update-alternatives and a priority computed in shell
# variables (which rockpack's native effects cannot read): the link exists only when the maintainer
# scripts run (apt: scripts: run, docs/run.md). Its prerm removes the alternative again.
#
# Exit codes: 0, 77 when a tool is missing (gpg, dpkg-deb, dpkg-scanpackages, apt-ftparchive, gzip),
# 1 on failure. Needs no root (every file is root:root via dpkg-deb --root-owner-group).
set -euo pipefail
umask 022

log() { echo "make_fake_rocm_repo: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || { log "SKIP: $1 is not installed"; exit 77; }; }

if [ $# -lt 1 ] || [ $# -gt 2 ]; then die "usage: $0 OUT_DIR [ROCM_VERSION]"; fi
OUT=$1
VER=${2:-6.4.1}
[[ $VER =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "ROCM_VERSION must be MAJOR.MINOR.PATCH, not '$VER'"
CODE=$((BASH_REMATCH[1] * 10000 + BASH_REMATCH[2] * 100 + BASH_REMATCH[3]))
MAJOR=${BASH_REMATCH[1]}
MINOR=${BASH_REMATCH[2]}
PATCH=${BASH_REMATCH[3]}
BUILD="-83~22.04"
SUITE=jammy
for t in gpg gpgconf dpkg-deb dpkg-scanpackages apt-ftparchive gzip sha256sum; do need "$t"; done

export LC_ALL=C TZ=UTC
export SOURCE_DATE_EPOCH=1745971200 # 2025-04-30, about when 6.4.1's packages were built
LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")/../integration/lib" && pwd)/apt_repo.sh"
# shellcheck source=/dev/null
source "$LIB"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
REPO="$OUT/rocm/apt/$VER"
P="opt/rocm-$VER"
rm -rf "$OUT/rocm" "$OUT/packages.txt" "$OUT/README" "$OUT"/.stage-*
apt_repo_keys "$OUT" || die "apt_repo_keys failed"
STAGE=$(mktemp -d "$OUT/.stage-XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
README=()

# v COMPONENT_VERSION: the full Debian version of a ROCm package.
v() { echo "$1.$CODE$BUILD"; }

# tree NAME: a fresh staging directory.
tree() {
  T="$STAGE/$1"
  rm -rf "$T"
  mkdir -p "$T/DEBIAN"
}
put() { # put PATH MODE CONTENT (in the current tree $T)
  mkdir -p "$(dirname "$T/$1")"
  printf '%b' "$3" >"$T/$1"
  chmod "$2" "$T/$1"
}
# lib DIR NAME SOVERSION FULLVERSION: DIR/libNAME.so.FULL (a text stub), .so.SOVERSION and .so links.
lib() {
  local dir=$1 name=$2 so=$3 full=$4
  put "$dir/lib$name.so.$full" 0644 "fake ROCm $VER shared library lib$name.so.$so (rockpack test fixture)\n"
  ln -s "lib$name.so.$full" "$T/$dir/lib$name.so.$so"
  ln -s "lib$name.so.$so" "$T/$dir/lib$name.so"
}
header() { put "$P/include/$1" 0644 "/* fake ROCm $VER header $1 (rockpack test fixture) */\n"; }

# deb NAME COMPONENT_VERSION DEPENDS DESCRIPTION: the control file, dates, dpkg-deb into the pool.
deb() {
  local name=$1 version
  version=$(v "$2")
  local depends=$3 desc=$4
  put "$P/share/doc/$name/copyright" 0644 "fake $name for the rockpack tests.\nLicense: CC0-1.0\n"
  local size
  size=$(du -sk --apparent-size --exclude=DEBIAN "$T" | cut -f1)
  {
    echo "Package: $name"
    echo "Version: $version"
    echo "Architecture: amd64"
    echo "Maintainer: ROCm Dev Support <rocm-dev.support@amd.com>"
    echo "Installed-Size: $size"
    [ -z "$depends" ] || echo "Depends: $depends"
    echo "Section: devel"
    echo "Priority: optional"
    echo "Homepage: https://github.com/ROCm/ROCm"
    echo "Description: $desc"
    echo " Fake package for the rockpack tests (tests/tools/make_fake_rocm_repo.sh): the name,"
    echo " dependencies and /opt/rocm-$VER layout of the real one, with stand-in contents."
  } >"$T/DEBIAN/control"
  find "$T" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  local dir="$REPO/pool/main/${name:0:1}/$name"
  mkdir -p "$dir"
  dpkg-deb --root-owner-group --build -Zxz "$T" "$dir/${name}_${version}_amd64.deb" >/dev/null
  echo "$name=$version" >>"$STAGE/packages.txt"
  README+=("$(printf '%-16s %-28s %s' "$name" "$version" "${depends:-(none)}")")
}

# Versions of the components (ROCm 6.4's numbering).
HIP=$MAJOR.$MINOR.43483
LLVM=19.0.0.25184
V_CORE=$VER V_ROCR=1.15.0 V_COMGR=3.0.0 V_INFO=1.0.0 V_DEVLIBS=1.0.0 V_HIPCC=1.1.1 V_CMAKE=0.14.0
V_SMI=7.5.0 V_AMDSMI=25.4.2 V_PROF=2.0 V_TRACER=4.1 V_BLAS=4.4.0 V_BLASLT=0.12.0 V_HIPBLAS=2.4.0
V_RCCL=2.22.3
V_PROF=$V_PROF.$CODE V_TRACER=$V_TRACER.$CODE # rocprofiler/roctracer repeat the code: 2.0.60401.60401
eq() { echo "$1 (= $(v "$2"))"; }

# --- rocm-core: the version file, librocm-core, and /opt/rocm made by its postinst (see the header).
tree rocm-core
put "$P/.info/version" 0644 "$VER-${BUILD#-}\n"
lib "$P/lib" rocm-core 1 1.0.$CODE
put "$P/include/rocm-core/rocm_version.h" 0644 "#define ROCM_VERSION_MAJOR $MAJOR\n#define ROCM_VERSION_MINOR $MINOR\n#define ROCM_VERSION_PATCH $PATCH\n"
put DEBIAN/postinst 0755 "#!/bin/sh\nset -e\n# As the real rocm-core: the alternative's priority from the version, in shell variables.\nROCMDIR=/opt/rocm-$VER\nPRIORITY=\$(echo $MAJOR$MINOR$PATCH | sed 's/^0*//')\nif [ \"\$1\" = configure ]; then\n  update-alternatives --install /opt/rocm rocm \"\$ROCMDIR\" \"\$PRIORITY\"\nfi\n"
put DEBIAN/prerm 0755 "#!/bin/sh\nset -e\nif [ \"\$1\" = remove ]; then update-alternatives --remove rocm /opt/rocm-$VER; fi\n"
deb rocm-core "$V_CORE" "" "ROCm Runtime software stack"

tree hsa-rocr
lib "$P/lib" hsa-runtime64 1 $V_ROCR.$CODE
deb hsa-rocr $V_ROCR "libdrm-amdgpu-amdgpu1 | libdrm-amdgpu1, libelf1, libnuma1, rocm-core" "AMD Heterogeneous System Architecture HSA - Linux HSA Runtime for Boltzmann (ROCm) platforms"
tree hsa-rocr-dev
header hsa/hsa.h
deb hsa-rocr-dev $V_ROCR "$(eq hsa-rocr $V_ROCR), rocm-core" "AMD Heterogeneous System Architecture HSA development package"

tree comgr
lib "$P/lib" amd_comgr 3 $V_COMGR
deb comgr $V_COMGR "libc6, libstdc++6, rocm-core" "Library to provide support functions"

tree rocminfo
put "$P/bin/rocminfo" 0755 "#!/bin/sh\necho 'ROCk module is NOT loaded, possibly no GPU devices (fake rocminfo $VER)'\nexit 1\n"
put "$P/bin/rocm_agent_enumerator" 0755 "#!/bin/sh\necho gfx000\n"
deb rocminfo $V_INFO "hsa-rocr, kmod, python3, rocm-core" "Radeon Open Compute (ROCm) Runtime rocminfo tool"

tree rocm-device-libs
put "$P/amdgcn/bitcode/ocml.bc" 0644 "fake device library ocml\n"
put "$P/amdgcn/bitcode/ockl.bc" 0644 "fake device library ockl\n"
deb rocm-device-libs $V_DEVLIBS "rocm-core" "Radeon Open Compute - device libraries"

tree rocm-llvm
put "$P/lib/llvm/bin/clang" 0755 "#!/bin/sh\necho 'AMD clang version 19.0.0git (https://github.com/RadeonOpenCompute/llvm-project roc-$VER 25184 fake)'\necho 'Target: x86_64-unknown-linux-gnu'\necho 'InstalledDir: /opt/rocm-$VER/lib/llvm/bin'\n"
ln -s clang "$T/$P/lib/llvm/bin/clang++"
ln -s clang "$T/$P/lib/llvm/bin/amdclang++"
ln -s lib/llvm "$T/$P/llvm"
deb rocm-llvm $LLVM "python3, libc6, libstdc++6, libelf1, libnuma1, rocm-core" "ROCm compiler"
tree rocm-llvm-dev
put "$P/lib/llvm/include/llvm/Config/llvm-config.h" 0644 "#define LLVM_VERSION_STRING \"19.0.0git\"\n"
put "$P/lib/llvm/lib/cmake/llvm/LLVMConfig.cmake" 0644 "set(LLVM_PACKAGE_VERSION 19.0.0git)\n"
deb rocm-llvm-dev $LLVM "$(eq rocm-llvm $LLVM), rocm-core" "ROCm compiler dev tools"

tree hipcc
# What the real `hipcc --version` prints (HIP version first, then the clang it drives).
put "$P/bin/hipcc" 0755 "#!/bin/sh\n# fake hipcc (rockpack test fixture)\ncase \"\$1\" in\n  --version)\n    echo 'HIP version: $HIP-fake'\n    exec /opt/rocm-$VER/lib/llvm/bin/clang --version ;;\nesac\necho 'fake hipcc: only --version works' >&2\nexit 1\n"
deb hipcc $V_HIPCC "libc6, libstdc++6, rocm-core, rocm-llvm" "HIP Compiler Driver"

tree hip-runtime-amd
lib "$P/lib" amdhip64 "$MAJOR" "$HIP.$CODE"
put "$P/bin/hipconfig" 0755 "#!/bin/sh\necho '$HIP-fake'\n"
put "$P/share/hip/version" 0644 "HIP_VERSION_MAJOR=$MAJOR\nHIP_VERSION_MINOR=$MINOR\nHIP_VERSION_PATCH=43483\n"
deb hip-runtime-amd "$HIP" "hsa-rocr, comgr (>= 2.0), rocminfo, rocm-core, libc6" "HIP:Heterogenous-computing Interface for Portability [AMD]"
tree hip-dev
header hip/hip_runtime.h
put "$P/lib/cmake/hip/hip-config.cmake" 0644 "set(HIP_VERSION $HIP)\n"
deb hip-dev "$HIP" "$(eq hip-runtime-amd "$HIP"), hipcc, rocm-llvm, rocm-core" "HIP: Heterogenous-computing Interface for Portability [DEVELOPMENT]"

tree rocm-cmake
put "$P/share/rocmcmakebuildtools/cmake/ROCMConfig.cmake" 0644 "# fake rocm-cmake\n"
deb rocm-cmake $V_CMAKE "rocm-core" "rocm-cmake built using CMake"

tree rocm-smi-lib
lib "$P/lib" rocm_smi64 7 $V_SMI.$CODE
put "$P/bin/rocm-smi" 0755 "#!/bin/sh\necho 'ROCM-SMI version: $V_SMI (fake)'\n"
deb rocm-smi-lib $V_SMI "python3, rocm-core" "AMD System Management libraries"
tree amd-smi-lib
lib "$P/lib" amd_smi 25 $V_AMDSMI.$CODE
put "$P/bin/amd-smi" 0755 "#!/bin/sh\necho 'AMDSMI Tool: $V_AMDSMI+fake | AMDSMI Library version: $V_AMDSMI | ROCm version: $VER'\n"
deb amd-smi-lib $V_AMDSMI "python3 (>= 3.6.8), python3-yaml, rocm-core" "AMD System Management libraries"

tree rocprofiler
lib "$P/lib" rocprofiler64 2 2.0.$CODE
put "$P/bin/rocprof" 0755 "#!/bin/sh\necho 'fake rocprof $VER'\n"
deb rocprofiler $V_PROF "hsa-rocr, rocm-core, libc6" "ROCPROFILER library for AMD HSA runtime API extension support"
tree rocprofiler-dev
header rocprofiler/rocprofiler.h
deb rocprofiler-dev $V_PROF "$(eq rocprofiler $V_PROF), hsa-rocr-dev, rocm-core" "ROCPROFILER library for AMD HSA runtime API extension support"
tree roctracer
lib "$P/lib" roctracer64 4 4.1.$CODE
deb roctracer $V_TRACER "hsa-rocr, hip-runtime-amd, rocm-core" "AMD ROCm Tracer API for HIP/HSA"
tree roctracer-dev
header roctracer/roctracer.h
deb roctracer-dev $V_TRACER "$(eq roctracer $V_TRACER), hsa-rocr-dev, rocm-core" "AMD ROCm Tracer API for HIP/HSA"

tree hipblaslt
lib "$P/lib" hipblaslt 0 $V_BLASLT.$CODE
deb hipblaslt $V_BLASLT "hip-runtime-amd (>= 4.5.0), rocm-core" "Radeon Open Compute BLAS marshalling library"
tree rocblas
lib "$P/lib" rocblas 4 $V_BLAS.$CODE
header rocblas/rocblas.h
deb rocblas $V_BLAS "hip-runtime-amd (>= 4.5.0), hipblaslt (>= 0.12.0), rocm-core" "rocBLAS is AMD's library for BLAS on ROCm. It is implemented in HIP and optimized for AMD GPUs."
tree hipblas
lib "$P/lib" hipblas 2 $V_HIPBLAS.$CODE
header hipblas/hipblas.h
deb hipblas $V_HIPBLAS "rocblas (>= 4.1.0), rocm-core" "Radeon Open Compute BLAS marshalling library"
tree rccl
lib "$P/lib" rccl 1 $V_RCCL.$CODE
header rccl/rccl.h
deb rccl $V_RCCL "hip-runtime-amd (>= 4.5.0), rocm-smi-lib (>= 4.0.0), rocm-core" "ROCm Communication Collectives Library"

# Metapackages: exact versions of their members, as the real ones have.
tree rocm-utils
deb rocm-utils "$V_CORE" "$(eq rocminfo $V_INFO), $(eq rocm-cmake $V_CMAKE), $(eq rocm-core "$V_CORE")" "Radeon Open Compute (ROCm) Runtime software stack"
tree rocm-dev
deb rocm-dev "$V_CORE" "$(eq amd-smi-lib $V_AMDSMI), $(eq comgr $V_COMGR), $(eq hip-dev "$HIP"), $(eq hip-runtime-amd "$HIP"), $(eq hipcc $V_HIPCC), $(eq hsa-rocr-dev $V_ROCR), $(eq rocm-cmake $V_CMAKE), $(eq rocm-core "$V_CORE"), $(eq rocm-device-libs $V_DEVLIBS), $(eq rocm-llvm $LLVM), $(eq rocm-smi-lib $V_SMI), $(eq rocm-utils "$V_CORE"), $(eq rocprofiler $V_PROF), $(eq rocprofiler-dev $V_PROF), $(eq roctracer $V_TRACER), $(eq roctracer-dev $V_TRACER)" "Radeon Open Compute (ROCm) Runtime software stack"
tree rocm-libs
deb rocm-libs "$V_CORE" "$(eq hipblas $V_HIPBLAS), $(eq hipblaslt $V_BLASLT), $(eq rccl $V_RCCL), $(eq rocblas $V_BLAS), $(eq rocm-core "$V_CORE")" "Radeon Open Compute (ROCm) Runtime software stack"

# --- indexes and the signed Release (the shape of repo.radeon.com's).
DIST="$REPO/dists/$SUITE"
BIN="$DIST/main/binary-amd64"
mkdir -p "$BIN"
(cd "$REPO" && dpkg-scanpackages --arch amd64 pool 2>/dev/null) >"$BIN/Packages"
[ -s "$BIN/Packages" ] || die "empty Packages index"
gzip -9n <"$BIN/Packages" >"$BIN/Packages.gz"
(cd "$DIST" && apt-ftparchive \
  -o APT::FTPArchive::Release::Origin=repo.radeon.com -o APT::FTPArchive::Release::Label=repo.radeon.com \
  -o APT::FTPArchive::Release::Suite=$SUITE -o APT::FTPArchive::Release::Codename=$SUITE \
  -o APT::FTPArchive::Release::Architectures=amd64 -o APT::FTPArchive::Release::Components=main \
  -o "APT::FTPArchive::Release::Description=fake ROCm $VER repository (rockpack tests/tools/make_fake_rocm_repo.sh)" \
  -o APT::FTPArchive::Release::SHA1=false -o APT::FTPArchive::Release::SHA512=false \
  release .) >"$STAGE/Release"
mv "$STAGE/Release" "$DIST/Release"
apt_repo_sign "$DIST" "$OUT/keys/test.secret.asc" || die "signing the Release failed"

sort "$STAGE/packages.txt" >"$OUT/packages.txt"
{
  echo "fake ROCm $VER apt repository (tests/tools/make_fake_rocm_repo.sh), signed by $(cat "$OUT/keys/test.fpr")"
  echo "  deb [signed-by=$OUT/keys/test.gpg] URL/rocm/apt/$VER $SUITE main"
  echo
  printf '%-16s %-28s %s\n' package version depends
  printf '%s\n' "${README[@]}"
} >"$OUT/README"
echo "$REPO"
