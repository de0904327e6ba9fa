# Shared by the benchmarks (sourced): timing a command with GNU time.

# measure NAME CMD...: runs CMD with its output in $work/NAME.out, puts its wall seconds into WALL
# and its peak RSS (MiB) into RSS; on failure prints the output and exits.
measure() {
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" >"$work/$name.out" 2>&1 || {
    cat "$work/$name.out" >&2
    echo "$(basename "$0"): $name failed" >&2
    exit 1
  }
  read -r WALL RSS <"$work/$name.time"
  RSS=$((RSS / 1024))
}
