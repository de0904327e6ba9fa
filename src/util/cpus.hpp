#pragma once
// How many CPUs this process may use, decided in one place for every worker pool.
//
// std::thread::hardware_concurrency() counts the host's CPUs. A process limited by `taskset`, a
// cpuset, or a CPU quota (a CI container, a Kubernetes pod with a CPU limit) may use fewer; starting
// a worker per host CPU then only adds memory and context switches. Like the Go, Java and .NET
// runtimes, the worker count is the smaller of
//   - the CPUs in the affinity mask (sched_getaffinity; cpusets show up here), and
//   - the CPU quota of the process's cgroup, rounded up: cgroup v2 `cpu.max` ("QUOTA PERIOD" or
//     "max PERIOD"), cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us` (-1: no quota), the
//     smallest along the path from the process's cgroup up to the hierarchy's root;
// unless `--jobs N` or ROCKPACK_JOBS=N says otherwise.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp {

// What was found, and the decision.
struct CpuBudget {
  unsigned host = 0;          // hardware_concurrency()
  unsigned affinity = 0;      // CPUs in the affinity mask; 0 when it could not be read
  double quota = 0;           // the cgroup CPU quota in CPUs; 0 when there is none
  std::string quota_source;   // the file that set it ("cgroup v1 /sys/fs/cgroup/cpu/x/cpu.cfs_quota_us")
  unsigned jobs = 0;          // --jobs / ROCKPACK_JOBS; 0 when not set
  std::string jobs_source;    // "--jobs" or "ROCKPACK_JOBS"
  unsigned workers = 1;       // what the pools use
  std::string describe() const;  // "2 workers (affinity 2 CPUs, cgroup quota 1.5 CPUs: ...)"
};

// The worker count every CPU-bound pool uses (at least 1). Decided on first use and kept.
unsigned worker_count();
// The whole decision, for logs and `rockpack --version`.
const CpuBudget& cpu_budget();
// --jobs N: overrides the detection and ROCKPACK_JOBS (n >= 1). Call before any pool starts.
void set_jobs_override(unsigned n, const std::string& source);

// The parts, exposed for tests.
namespace cpus {

// cgroup v2 cpu.max: "50000 100000" -> 0.5; "max 100000" -> none. Malformed -> none.
std::optional<double> parse_cpu_max(std::string_view text);
// cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us: "150000", "100000" -> 1.5; "-1" -> none.
std::optional<double> parse_cfs_quota(std::string_view quota_us, std::string_view period_us);
// The CPUs in a mask of `size` bytes (the layout of cpu_set_t: bit i of the mask is CPU i).
unsigned count_mask(const unsigned char* mask, size_t size);
// ROCKPACK_JOBS / --jobs text: a whole number from 1 to 4096, else none.
std::optional<unsigned> parse_jobs(std::string_view text);

// A directory whose CPU-quota files apply to this process, innermost first.
struct QuotaDir {
  std::string path;
  bool v2 = false;
};
// From the text of /proc/self/cgroup and /proc/self/mountinfo: the cgroup directories of the
// process's CPU controller (v1 "cpu" or the v2 unified hierarchy), from its own cgroup up to the
// mount point. Both hierarchies are listed when both are mounted: a hybrid host (v1 controllers,
// v2 mounted beside them) has no cpu.max in its v2 tree, so only the files that exist count.
std::vector<QuotaDir> quota_dirs(std::string_view proc_cgroup, std::string_view mountinfo);
// The smallest quota found in `dirs` (files read from disk), with the file that set it.
std::optional<double> read_quota(const std::vector<QuotaDir>& dirs, std::string* source);
// The decision: the override if any, else min(affinity or host, ceil(quota)), at least 1.
unsigned decide(unsigned host, unsigned affinity, double quota, unsigned jobs);

}  // namespace cpus

}  // namespace rp
