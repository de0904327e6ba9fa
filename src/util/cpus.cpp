#include "util/cpus.hpp"

#include <sched.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace rp {

namespace cpus {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<long long> parse_integer(std::string_view s) {
  s = trim(s);
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// mountinfo escapes a space, tab, newline and backslash in a path as \040, \011, \012, \134.
std::string unescape_mount_path(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool octal = true;
      for (size_t k = 1; k <= 3; ++k) {
        if (s[i + k] < '0' || s[i + k] > '7') octal = false;
        else v = v * 8 + (s[i + k] - '0');
      }
      if (octal) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

struct Mount {
  std::string root;   // the path inside the hierarchy that is mounted
  std::string point;  // where
  bool v2 = false;
  bool has_cpu = false;  // v1: the hierarchy carries the cpu controller
};

std::vector<Mount> cgroup_mounts(std::string_view mountinfo) {
  std::vector<Mount> out;
  for (std::string_view line : split(mountinfo, '\n')) {
    // ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
    std::vector<std::string_view> f;
    for (std::string_view w : split(trim(line), ' '))
      if (!w.empty()) f.push_back(w);
    size_t dash = 0;
    for (size_t i = 6; i < f.size(); ++i)
      if (f[i] == "-") {
        dash = i;
        break;
      }
    if (f.size() < 6 || dash == 0 || dash + 1 >= f.size()) continue;
    std::string_view type = f[dash + 1];
    Mount m{unescape_mount_path(f[3]), unescape_mount_path(f[4]), type == "cgroup2", false};
    if (type == "cgroup" && dash + 3 < f.size())
      for (std::string_view opt : split(f[dash + 3], ','))
        if (opt == "cpu") m.has_cpu = true;
    if (m.v2 || m.has_cpu) out.push_back(m);
  }
  return out;
}

// POINT + (PATH relative to ROOT), then every parent up to POINT.
void add_chain(const Mount& m, std::string_view cgroup_path, bool v2, std::vector<QuotaDir>& out) {
  std::string rel(cgroup_path);
  // A mount of a sub-tree (a container's own cgroup bind-mounted at the mount point): the process's
  // path starts with the mounted root. When it does not (a cgroup namespace hides the path), the
  // mount point itself is the process's cgroup.
  if (m.root != "/" && rel.compare(0, m.root.size(), m.root) == 0 &&
      (rel.size() == m.root.size() || rel[m.root.size()] == '/'))
    rel = rel.substr(m.root.size());
  else if (m.root != "/")
    rel.clear();
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  for (;;) {
    out.push_back({m.point + rel, v2});
    if (rel.empty()) return;
    size_t slash = rel.rfind('/');
    rel = slash == std::string::npos ? std::string() : rel.substr(0, slash);
  }
}

std::optional<std::string> read_small_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::optional<double> parse_cpu_max(std::string_view text) {
  std::vector<std::string_view> f;
  for (std::string_view w : split(trim(text), ' '))
    if (!w.empty()) f.push_back(w);
  if (f.size() != 2 || f[0] == "max") return std::nullopt;
  auto quota = parse_integer(f[0]);
  auto period = parse_integer(f[1]);
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

std::optional<double> parse_cfs_quota(std::string_view quota_us, std::string_view period_us) {
  auto quota = parse_integer(quota_us);
  auto period = parse_integer(period_us);
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;  // -1: no quota
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

unsigned count_mask(const unsigned char* mask, size_t size) {
  unsigned n = 0;
  for (size_t i = 0; i < size; ++i) n += static_cast<unsigned>(__builtin_popcount(mask[i]));
  return n;
}

std::optional<unsigned> parse_jobs(std::string_view text) {
  auto v = parse_integer(text);
  if (!v || *v < 1 || *v > 4096) return std::nullopt;
  return static_cast<unsigned>(*v);
}

std::vector<QuotaDir> quota_dirs(std::string_view proc_cgroup, std::string_view mountinfo) {
  std::vector<Mount> mounts = cgroup_mounts(mountinfo);
  std::vector<QuotaDir> out;
  for (std::string_view line : split(proc_cgroup, '\n')) {
    // HIERARCHY-ID:CONTROLLERS:PATH (v2: "0::PATH"). The path may itself hold ':'.
    size_t a = line.find(':');
    size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    std::string_view controllers = line.substr(a + 1, b - a - 1);
    std::string_view path = trim(line.substr(b + 1));
    bool v2 = line.substr(0, a) == "0" && controllers.empty();
    bool cpu = false;
    for (std::string_view c : split(controllers, ','))
      if (c == "cpu") cpu = true;
    if (!v2 && !cpu) continue;
    for (const Mount& m : mounts)
      if (m.v2 == v2 && (v2 || m.has_cpu)) {
        add_chain(m, path, v2, out);
        break;
      }
  }
  return out;
}

std::optional<double> read_quota(const std::vector<QuotaDir>& dirs, std::string* source) {
  std::optional<double> best;
  for (const QuotaDir& d : dirs) {
    std::optional<double> q;
    std::string file;
    if (d.v2) {
      file = d.path + "/cpu.max";
      if (auto text = read_small_file(file)) q = parse_cpu_max(*text);
    } else {
      file = d.path + "/cpu.cfs_quota_us";
      auto quota = read_small_file(file);
      auto period = read_small_file(d.path + "/cpu.cfs_period_us");
      if (quota && period) q = parse_cfs_quota(*quota, *period);
    }
    if (q && (!best || *q < *best)) {
      best = q;
      if (source) *source = (d.v2 ? "cgroup v2 " : "cgroup v1 ") + file;
    }
  }
  return best;
}

unsigned decide(unsigned host, unsigned affinity, double quota, unsigned jobs) {
  if (jobs) return jobs;
  unsigned n = affinity ? affinity : (host ? host : 1);
  if (quota > 0) {
    double q = std::ceil(quota - 1e-9);  // 2.0000000001 from a rounding error is still 2
    if (q < n) n = static_cast<unsigned>(q);
  }
  return n ? n : 1;
}

}  // namespace cpus

namespace {

unsigned affinity_cpus() {
  // A mask big enough for the machine: grow past 1024 CPUs when the kernel says EINVAL.
  for (size_t cpus = 1024; cpus <= (1u << 20); cpus *= 2) {
    size_t bytes = CPU_ALLOC_SIZE(cpus);
    std::vector<unsigned char> mask(bytes);
    if (sched_getaffinity(0, bytes, reinterpret_cast<cpu_set_t*>(mask.data())) == 0)
      return cpus::count_mask(mask.data(), bytes);
    if (errno != EINVAL) return 0;
  }
  return 0;
}

std::mutex budget_mutex;
std::optional<CpuBudget> budget;
unsigned jobs_override = 0;
std::string jobs_override_source;

CpuBudget detect() {
  CpuBudget b;
  b.host = std::thread::hardware_concurrency();
  b.affinity = affinity_cpus();
  auto proc_cgroup = cpus::read_small_file("/proc/self/cgroup");
  auto mountinfo = cpus::read_small_file("/proc/self/mountinfo");
  if (proc_cgroup && mountinfo)
    if (auto q = cpus::read_quota(cpus::quota_dirs(*proc_cgroup, *mountinfo), &b.quota_source)) b.quota = *q;
  if (jobs_override) {
    b.jobs = jobs_override;
    b.jobs_source = jobs_override_source;
  } else if (const char* env = std::getenv("ROCKPACK_JOBS"); env && *env) {
    if (auto j = cpus::parse_jobs(env)) {
      b.jobs = *j;
      b.jobs_source = "ROCKPACK_JOBS";
    }
  }
  b.workers = cpus::decide(b.host, b.affinity, b.quota, b.jobs);
  return b;
}

}  // namespace

std::string CpuBudget::describe() const {
  std::string out = std::to_string(workers) + (workers == 1 ? " worker" : " workers") + " (";
  if (jobs) out += jobs_source + "=" + std::to_string(jobs) + "; ";
  out += "host " + std::to_string(host) + " CPUs, affinity mask ";
  out += affinity ? std::to_string(affinity) + " CPUs" : std::string("unknown");
  if (quota > 0) {
    char q[32];
    std::snprintf(q, sizeof q, "%.2f", quota);
    out += ", CPU quota " + std::string(q) + " CPUs from " + quota_source;
  } else {
    out += ", no cgroup CPU quota";
  }
  return out + ")";
}

const CpuBudget& cpu_budget() {
  std::lock_guard lock(budget_mutex);
  if (!budget) budget = detect();
  return *budget;
}

unsigned worker_count() { return cpu_budget().workers; }

void set_jobs_override(unsigned n, const std::string& source) {
  std::lock_guard lock(budget_mutex);
  jobs_override = n;
  jobs_override_source = source;
  budget.reset();
}

}  // namespace rp
