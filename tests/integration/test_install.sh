#!/usr/bin/env bash
# `cmake --install` (issue 14): the binary, bash/zsh/fish completions and the man page generated from
# the CLI definitions, and recipes/ + layers/ as shared data. The completions load in their shells
# and complete commands, flags and flag values; the man page renders; --version names the commit.
source "$(dirname "$0")/lib/common.sh"
need cmake
BUILD_DIR=$(dirname "$ROCKPACK")
[ -f "$BUILD_DIR/cmake_install.cmake" ] || skip "$ROCKPACK is not in a CMake build directory"
cmake --build "$BUILD_DIR" --target rockpack_docs >/dev/null || fail "building the completions and man page failed"
cmake --install "$BUILD_DIR" --prefix "$WORK/prefix" >"$WORK/install.log" || fail "cmake --install failed: $(cat "$WORK/install.log")"
P="$WORK/prefix"
for f in bin/rockpack share/bash-completion/completions/rockpack share/zsh/site-functions/_rockpack \
  share/fish/vendor_completions.d/rockpack.fish share/man/man1/rockpack.1 \
  share/rockpack/recipes/pytorch-therock-rocm-ci.yaml share/rockpack/layers/therock-pytorch-ci.yaml; do
  [ -s "$P/$f" ] || fail "cmake --install did not install $f"
done
# The installed recipes still find their fragment (layers/ next to recipes/).
"$P/bin/rockpack" validate "$P/share/rockpack/recipes/pytorch-therock-rocm-ci.yaml" >/dev/null 2>"$WORK/validate.log" \
  || fail "the installed recipe does not load: $(cat "$WORK/validate.log")"

# --version: commit, build type, libraries.
version=$("$P/bin/rockpack" --version)
assert_contains "$version" "build type:" "--version names the build type"
assert_contains "$version" "zstd" "--version names zstd"
assert_contains "$version" "libdeflate" "--version names libdeflate"
if git -C "$ROCKPACK_SOURCE_DIR" rev-parse --short HEAD >/dev/null 2>&1; then
  assert_contains "$version" "$(git -C "$ROCKPACK_SOURCE_DIR" rev-parse --short=7 HEAD)" "--version names the commit"
fi

# bash: commands, a command's flags, and the values of a flag with fixed choices.
comp() { bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rockpack; echo "${COMPREPLY[*]}"' _ \
  "$P/share/bash-completion/completions/rockpack" "$@"; }
assert_eq "$(comp rockpack pu)" "push pull publish" "bash completes commands"
assert_contains "$(comp rockpack build --pl)" "--platform" "bash completes build's flags"
assert_eq "$(comp rockpack --log-format "")" "text json" "bash completes flag values"
if [ -n "$(comp rockpack pu | grep -w completion)" ]; then fail "hidden commands are completed"; fi
# zsh and fish: the scripts at least parse (and name every command).
if command -v zsh >/dev/null; then zsh -n "$P/share/zsh/site-functions/_rockpack" || fail "zsh rejects _rockpack"; fi
if command -v fish >/dev/null; then fish -n "$P/share/fish/vendor_completions.d/rockpack.fish" || fail "fish rejects rockpack.fish"; fi
for c in build validate inspect push pull login logout gc; do
  grep -q "'$c:" "$P/share/zsh/site-functions/_rockpack" || fail "zsh completion lacks $c"
  grep -q -- "-a $c " "$P/share/fish/vendor_completions.d/rockpack.fish" || fail "fish completion lacks $c"
done

# The man page renders and documents commands and their flags.
if command -v man >/dev/null; then
  page=$(MANWIDTH=120 man -l "$P/share/man/man1/rockpack.1" 2>&1)
  assert_contains "$page" "rockpack build" "man page: build"
  assert_contains "$page" "--platform" "man page: flags"
  assert_contains "$page" "EXIT STATUS" "man page: exit status"
else
  grep -q '^.SS "rockpack build"' "$P/share/man/man1/rockpack.1" || fail "man page lacks build"
fi
echo "ok"
