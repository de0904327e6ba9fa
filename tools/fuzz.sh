#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.cpp) with clang, rockpack_core instrumented with
# ASan+UBSan and coverage (CMakeLists.txt, ROCKPACK_FUZZ), and runs them over the checked-in seed
# corpus fuzz/corpus/<target>/. The smoke run then runs the unit tests once more, linked against that
# same instrumented library, so every unit test case is also checked by ASan+UBSan (leaks too);
# FUZZ_UNIT=0 skips them.
#
#   tools/fuzz.sh                          the smoke run CI does (tools/test.sh): every target for
#                                          FUZZ_SECONDS seconds (default 5), FUZZ_JOBS at a time,
#                                          then the unit tests under ASan+UBSan (FUZZ_UNIT=0: not)
#   tools/fuzz.sh --long SECONDS [TARGET]  a longer run on demand: every target, or only TARGET
#   tools/fuzz.sh --build-only             configure and build, run nothing
#
# Fails (exit 1) on any crash, leak, timeout, out-of-memory or sanitizer report, naming the target,
# the reproducer file and the command that replays it. Everything a run writes stays under the build
# directory (FUZZ_BUILD_DIR, default ./build-fuzz): fuzz-runs/<target>/ holds the log, the inputs
# libFuzzer found (corpus/; merge good ones into fuzz/corpus with -merge=1) and any artifact. The
# scratch files of the targets go to fuzz-runs/<target>/tmp ($TMPDIR), removed after the run.
#
# Environment: FUZZ_BUILD_DIR, FUZZ_SECONDS, FUZZ_JOBS (targets run at once; default: the cores),
# FUZZ_BUILD_JOBS (compile jobs; default: the cores), CC/CXX (default clang-14/clang++-14 or clang).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${FUZZ_BUILD_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-5}
jobs=${FUZZ_JOBS:-$(nproc)}
build_jobs=${FUZZ_BUILD_JOBS:-$(nproc)}
# The unit tests under ASan+UBSan (docs/reliability.md): 345 cases in 69 s on 2 cores.
unit=${FUZZ_UNIT:-1}
only=""
mode=smoke
case "${1:-}" in
  --long)
    mode=long
    seconds=${2:?"usage: tools/fuzz.sh --long SECONDS [TARGET]"}
    only=${3:-}
    unit=0
    ;;
  --build-only) mode=build ;;
  "") ;;
  *) echo "usage: tools/fuzz.sh [--long SECONDS [TARGET] | --build-only]" >&2; exit 2 ;;
esac

# --- build -----------------------------------------------------------------------------------------
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cc=${CC:-$(command -v clang-14 || command -v clang || true)}
  cxx=${CXX:-$(command -v clang++-14 || command -v clang++ || true)}
  if [ -z "$cxx" ] || ! "$cxx" --version | grep -q clang; then
    echo "fuzz: clang is needed for libFuzzer (install clang and libclang-rt-dev: tools/install-deps.sh)" >&2
    exit 1
  fi
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  # -O1 with line tables: the usual fuzzing trade (fast enough to run, cheap to build, and reports
  # that name file and line). No NDEBUG: the library's own assertions (nlohmann/json's) stay on.
  CC=$cc CXX=$cxx cmake -S . -B "$build_dir" "${generator[@]}" -DROCKPACK_FUZZ=ON -DBUILD_TESTING=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
elif [ "$unit" = 1 ] && grep -q '^BUILD_TESTING:BOOL=OFF' "$build_dir/CMakeCache.txt"; then
  cmake -S . -B "$build_dir" -DBUILD_TESTING=ON >/dev/null  # a tree configured before the unit tests ran here
fi
build_targets=(fuzz_all)
[ "$unit" = 1 ] && build_targets+=(rockpack_unit_tests)
start=$(date +%s)
cmake --build "$build_dir" -j"$build_jobs" --target "${build_targets[@]}"
echo "fuzz: built ${build_targets[*]} in $(( $(date +%s) - start ))s"
[ "$mode" = build ] && exit 0

# --- run -------------------------------------------------------------------------------------------
targets=()
for src in fuzz/fuzz_*.cpp; do
  t=$(basename "$src" .cpp)
  [ -z "$only" ] || [ "$t" = "$only" ] && targets+=("$t")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no target named '$only' (see fuzz/fuzz_*.cpp)" >&2
  exit 2
fi

runs="$build_dir/fuzz-runs"
mkdir -p "$runs"
# A UBSan report aborts (the library is built without recovery); ASan checks leaks at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target: libFuzzer writes what it finds to the run's own corpus and reads the seeds read-only.
run_target() {
  local t=$1 dir="$runs/$1"
  rm -rf "$dir/artifacts" "$dir/tmp"
  mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/tmp"
  local seeds=()
  [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
  local rc=0
  TMPDIR="$dir/tmp" "$build_dir/fuzz/$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" "${seeds[@]}" >"$dir/log" 2>&1 || rc=$?
  rm -rf "$dir/tmp"
  echo "$rc" >"$dir/rc"
}

start=$(date +%s)
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true

failed=0
for t in "${targets[@]}"; do
  dir="$runs/$t"
  rc=$(cat "$dir/rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 || true)
  artifacts=$(find "$dir/artifacts" -type f 2>/dev/null | sort)
  if [ "$rc" != 0 ] || [ -n "$artifacts" ] ||
     grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$dir/log"; then
    failed=$((failed + 1))
    echo "fuzz: FAILED $t (exit $rc)"
    grep -E -A40 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|==ERROR|deadly signal' "$dir/log" |
      head -60 | sed 's/^/    /'
    for a in $artifacts; do
      echo "    reproducer: $a"
      echo "    replay:     $build_dir/fuzz/$t $a"
    done
    echo "    log:        $dir/log"
  else
    echo "fuzz: ok $t (${execs:-?} runs, ${cov:-cov: ?})"
  fi
done
echo "fuzz: ${#targets[@]} targets x ${seconds}s, $jobs at a time: $(( $(date +%s) - start ))s"

# --- the unit tests under ASan+UBSan ---------------------------------------------------------------
unit_failed=0
if [ "$unit" = 1 ]; then
  start=$(date +%s)
  unit_log="$runs/unit-tests.log"
  if "$build_dir/tests/rockpack_unit_tests" --no-intro=true >"$unit_log" 2>&1 &&
     ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$unit_log"; then
    echo "fuzz: ok unit tests under ASan+UBSan ($(grep -oE '[0-9]+ passed' "$unit_log" | head -1) cases; $(( $(date +%s) - start ))s)"
  else
    unit_failed=1
    echo "fuzz: FAILED the unit tests under ASan+UBSan"
    grep -E -A40 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|ERROR:|FAILED' "$unit_log" | head -80 | sed 's/^/    /'
    echo "    log:    $unit_log"
    echo "    replay: $build_dir/tests/rockpack_unit_tests [-tc='CASE NAME']"
  fi
fi

if [ "$failed" -gt 0 ]; then
  echo "fuzz: $failed target(s) failed; fix the bug, then add the reproducer to fuzz/corpus/<target>/" >&2
  exit 1
fi
[ "$unit_failed" = 0 ] || { echo "fuzz: the unit tests failed under ASan+UBSan (above)" >&2; exit 1; }
