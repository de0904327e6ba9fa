#!/usr/bin/env bash
# The CPUs rockpack may use (src/util/cpus.hpp): the affinity mask (`taskset`), a cgroup CPU quota
# (v1 cpu.cfs_quota_us or v2 cpu.max, in a child cgroup made here), --jobs and ROCKPACK_JOBS. The
# decision shows in `rockpack --version` and in a build's debug log; a build under the limit still
# writes the same image.
source "$(dirname "$0")/lib/common.sh"
need taskset
cd "$WORK"

workers_of() { sed -n 's/^workers: *\([0-9]*\) workers\{0,1\} .*/\1/p'; }

# The whole machine: no more workers than CPUs in the mask.
out=$("$ROCKPACK" --version)
all=$(printf '%s\n' "$out" | workers_of)
[ -n "$all" ] || fail "--version names no worker count: $out"
[ "$all" -le "$(nproc)" ] || fail "$all workers for $(nproc) CPUs: $out"

# taskset -c 0: one CPU in the mask, one worker, whatever the host has.
out=$(taskset -c 0 "$ROCKPACK" --version)
assert_eq "$(printf '%s\n' "$out" | workers_of)" "1" "workers under taskset -c 0"
assert_contains "$out" "affinity mask 1 CPUs" "--version names the mask"

# Overrides: --jobs wins over ROCKPACK_JOBS, which wins over the mask.
out=$(ROCKPACK_JOBS=5 taskset -c 0 "$ROCKPACK" --version)
assert_eq "$(printf '%s\n' "$out" | workers_of)" "5" "workers with ROCKPACK_JOBS=5"
assert_contains "$out" "ROCKPACK_JOBS=5" "--version names the override"
out=$(ROCKPACK_JOBS=5 taskset -c 0 "$ROCKPACK" -v --jobs 3 validate /nonexistent.yaml 2>&1 || true)
assert_contains "$out" "workers: 3 workers (--jobs=3" "--jobs over ROCKPACK_JOBS"
rc=0; out=$(ROCKPACK_JOBS=lots "$ROCKPACK" validate /nonexistent.yaml 2>&1) || rc=$?
assert_eq "$rc" "2" "ROCKPACK_JOBS=lots: exit code"
assert_contains "$out" "ROCKPACK_JOBS=lots is not a number" "ROCKPACK_JOBS=lots: message"
rc=0; out=$("$ROCKPACK" --jobs 0 validate /nonexistent.yaml 2>&1) || rc=$?
assert_eq "$rc" "2" "--jobs 0: exit code"

# A build under taskset: the debug log says what was decided, and the layer is the same image.
head -c 3000000 /dev/urandom >blob.bin
seq 1 200000 >numbers.txt
cat >r.yaml <<EOF
name: cpus
base: scratch
files:
  - {src: blob.bin, dest: /blob.bin}
  - {src: numbers.txt, dest: /numbers.txt}
EOF
SOURCE_DATE_EPOCH=1 "$ROCKPACK" build r.yaml --cache-dir "$WORK/c1" -o "oci:$WORK/all:x" >/dev/null 2>&1 || fail "build"
out=$(SOURCE_DATE_EPOCH=1 taskset -c 0 "$ROCKPACK" -v build r.yaml --cache-dir "$WORK/c2" -o "oci:$WORK/one:x" 2>&1) \
  || fail "build under taskset -c 0: $out"
assert_contains "$out" "workers: 1 worker (" "the build's debug log under taskset"
assert_eq "$(cat "$WORK/one/index.json")" "$(cat "$WORK/all/index.json")" "the same image on 1 and on all CPUs"

# A cgroup with a CPU quota of half a CPU: one worker, and --version names the file. Made as a
# child of the cgroup this test runs in; skipped only when no cpu controller can be written.
cpu_dir=""
if grep -q ' - cgroup cgroup .*[,]cpu\([,]\|$\)' /proc/self/mountinfo; then
  mnt=$(awk '$0 ~ / - cgroup cgroup / { n=split($NF, o, ","); for (i=1;i<=n;i++) if (o[i]=="cpu") print $5 }' /proc/self/mountinfo | head -n 1)
  rel=$(awk -F: '{ n=split($2, c, ","); for (i=1;i<=n;i++) if (c[i]=="cpu") print $3 }' /proc/self/cgroup | head -n 1)
  cpu_dir="$mnt${rel%/}/rockpack-test-$$"
  mkdir "$cpu_dir" 2>/dev/null && echo 50000 >"$cpu_dir/cpu.cfs_quota_us" 2>/dev/null || cpu_dir=""
  quota_file=cpu.cfs_quota_us
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
  parent="/sys/fs/cgroup${rel%/}"
  cpu_dir="$parent/rockpack-test-$$"
  { grep -qw cpu "$parent/cgroup.subtree_control" || echo +cpu >"$parent/cgroup.subtree_control"; } 2>/dev/null &&
    mkdir "$cpu_dir" 2>/dev/null && echo "50000 100000" >"$cpu_dir/cpu.max" 2>/dev/null || cpu_dir=""
  quota_file=cpu.max
fi
[ -n "$cpu_dir" ] || skip "no writable cgroup cpu controller (needs root on a host that delegates it)"
remove_cgroup() { rmdir "$cpu_dir" 2>/dev/null || true; }
trap 'remove_cgroup; cleanup' EXIT
in_cgroup() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cpu_dir" "$@"; }
out=$(in_cgroup "$ROCKPACK" --version)
assert_eq "$(printf '%s\n' "$out" | workers_of)" "1" "workers in a cgroup with a quota of 0.5 CPU"
assert_contains "$out" "CPU quota 0.50 CPUs from cgroup" "--version names the quota"
assert_contains "$out" "rockpack-test-$$/$quota_file" "--version names the quota's file"
out=$(SOURCE_DATE_EPOCH=1 in_cgroup "$ROCKPACK" -v build r.yaml --cache-dir "$WORK/c3" -o "oci:$WORK/quota:x" 2>&1) \
  || fail "build in the cgroup: $out"
assert_contains "$out" "workers: 1 worker (" "the build's debug log in the cgroup"
assert_eq "$(cat "$WORK/quota/index.json")" "$(cat "$WORK/all/index.json")" "the same image under a CPU quota"
echo "PASS"
