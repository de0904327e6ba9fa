# Shared by the benchmarks (sourced): a scratch directory, and timing a command with GNU time.

# bench_setup NAME: $work, a scratch directory removed at exit, and PIDS, the background servers
# (append to it) killed at exit.
bench_setup() {
  work=$(mktemp -d "/tmp/rockpack-$1-XXXXXX")
  PIDS=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}

# measure NAME CMD...: runs CMD with its output in $work/NAME.out, puts its wall seconds into WALL,
# its peak RSS (MiB) into RSS and its user and system CPU seconds into USR and SYS; on failure
# prints the output and exits.
measure() {
  local name=$1
  shift
  sync  # the previous step's writes go to disk now, not during this step's timing
  /usr/bin/time -f "%e %M %U %S" -o "$work/$name.time" "$@" >"$work/$name.out" 2>&1 || {
    cat "$work/$name.out" >&2
    echo "$(basename "$0"): $name failed" >&2
    exit 1
  }
  read -r WALL RSS USR SYS <"$work/$name.time"
  RSS=$((RSS / 1024))
}
