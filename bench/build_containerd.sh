#!/usr/bin/env bash
# Builds containerd and ctr from a containerd source tree (a release tag, with its vendor/
# directory) for bench/pull_bench.sh --containerd DIR, with a Go toolchain from Debian (fetched
# verified into the benchmark cache by bench/debian_deb.sh; no module download, no toolchain
# download: GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off).
#   bench/build_containerd.sh SRC OUT [--go-suite sid] [--go 1.26]
#   SRC: a containerd checkout, or a git directory and a tag as GITDIR@TAG (exported with git archive)
#   OUT: where bin/containerd and bin/ctr go (made; replaced if it exists)
# The Go release must be at least the `go` line of the tree's go.mod (containerd 2.2 asks for 1.24
# or 1.25, 2.3 for 1.26): Debian trixie has golang-1.24, sid golang-1.26 and 1.27.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
src=$1 out=$2
shift 2
go_suite=sid go_release=1.26
while [ $# -gt 0 ]; do
  case "$1" in
    --go-suite) go_suite=${2:?}; shift 2 ;;
    --go) go_release=${2:?}; shift 2 ;;
    *) echo "build_containerd: unknown argument $1" >&2; exit 2 ;;
  esac
done
cache=${ROCKPACK_BENCH_CACHE:-$HOME/.cache/rockpack-bench}
mkdir -p "$cache"

# The Go toolchain: golang-1.NN-go (bin/, pkg/) and golang-1.NN-src (the standard library) from
# Debian, put back together as the two packages install them (lib/go-1.NN links into share/go-1.NN).
# shellcheck source=debian_deb.sh
source "$root/bench/debian_deb.sh"
go_bin=$(debian_deb_fetch "$go_suite" "golang-$go_release-go" "$cache")
go_src=$(debian_deb_fetch "$go_suite" "golang-$go_release-src" "$cache")
goroot_parent=$cache/go-$go_release-$(basename "$go_bin" | sed "s/^golang-$go_release-go-//")
if [ ! -d "$goroot_parent" ]; then
  rm -rf "$goroot_parent.tmp"
  mkdir -p "$goroot_parent.tmp/usr"
  cp -a "$go_bin/usr/." "$go_src/usr/." "$goroot_parent.tmp/usr/"
  mv "$goroot_parent.tmp" "$goroot_parent"
fi
export GOROOT=$goroot_parent/usr/lib/go-$go_release
go=$GOROOT/bin/go

# The source: a checkout, or GITDIR@TAG exported into a scratch directory.
work=$(mktemp -d "${TMPDIR:-/tmp}/build-containerd-XXXXXX")
trap 'rm -rf "$work"' EXIT
version="" revision=""
if [[ "$src" == *@* ]]; then
  gitdir=${src%@*} tag=${src##*@}
  mkdir "$work/src"
  git --git-dir="$gitdir" archive "$tag" | tar -x -C "$work/src"
  version=$tag
  revision=$(git --git-dir="$gitdir" rev-parse "$tag^{commit}")
  src=$work/src
fi
[ -f "$src/go.mod" ] && [ -d "$src/vendor" ] ||
  { echo "build_containerd: $src has no go.mod and vendor/ (a containerd release tag has both)" >&2; exit 2; }
need=$(awk '$1 == "go" {print $2; exit}' "$src/go.mod")
have=$("$go" env GOVERSION | sed 's/^go//')
[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" = "$need" ] ||
  { echo "build_containerd: $src needs Go $need, Debian $go_suite's golang-$go_release is $have (--go-suite, --go)" >&2; exit 2; }
[ -n "$version" ] || version=$(git -C "$src" describe --match 'v[0-9]*' --always 2>/dev/null || echo unknown)
[ -n "$revision" ] || revision=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)

# As the Makefile builds them, minus btrfs (its headers are not needed by the overlayfs snapshotter).
echo "building containerd $version with Go $have..." >&2
pkg=github.com/containerd/containerd/v2
ldflags="-s -w -X $pkg/version.Version=$version -X $pkg/version.Revision=$revision -X $pkg/version.Package=$pkg"
mkdir -p "$work/out/bin"
(
  cd "$src"
  export GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off GOCACHE=$cache/go-build GOPATH=$work/gopath
  "$go" build -trimpath -tags "no_btrfs urfave_cli_no_docs" -ldflags "$ldflags" -o "$work/out/bin/" ./cmd/containerd ./cmd/ctr
)
"$work/out/bin/containerd" --version >&2
rm -rf "$out"
mkdir -p "$(dirname "$out")"
mv "$work/out" "$out"
echo "$out"
