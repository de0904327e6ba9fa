#include <doctest/doctest.h>

#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "util/cpus.hpp"

namespace fs = std::filesystem;
using namespace rp::cpus;

TEST_CASE("cpus: cgroup v2 cpu.max") {
  CHECK(parse_cpu_max("max 100000\n") == std::nullopt);
  CHECK(*parse_cpu_max("50000 100000\n") == doctest::Approx(0.5));
  CHECK(*parse_cpu_max("150000 100000") == doctest::Approx(1.5));
  CHECK(*parse_cpu_max("  400000   100000  \n") == doctest::Approx(4.0));
  CHECK(parse_cpu_max("") == std::nullopt);
  CHECK(parse_cpu_max("50000") == std::nullopt);
  CHECK(parse_cpu_max("50000 0") == std::nullopt);
  CHECK(parse_cpu_max("-5 100000") == std::nullopt);
  CHECK(parse_cpu_max("abc 100000") == std::nullopt);
  CHECK(parse_cpu_max("1 2 3") == std::nullopt);
}

TEST_CASE("cpus: cgroup v1 cfs quota and period") {
  CHECK(parse_cfs_quota("-1\n", "100000\n") == std::nullopt);
  CHECK(*parse_cfs_quota("50000\n", "100000\n") == doctest::Approx(0.5));
  CHECK(*parse_cfs_quota("250000", "100000") == doctest::Approx(2.5));
  CHECK(parse_cfs_quota("50000", "") == std::nullopt);
  CHECK(parse_cfs_quota("x", "100000") == std::nullopt);
  CHECK(parse_cfs_quota("50000", "0") == std::nullopt);
}

TEST_CASE("cpus: the affinity mask is counted bit by bit") {
  unsigned char none[16] = {};
  CHECK(count_mask(none, sizeof none) == 0);
  unsigned char some[16] = {0x01, 0x00, 0xff, 0x80};
  CHECK(count_mask(some, sizeof some) == 10);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(0, &set);
  CPU_SET(3, &set);
  CPU_SET(200, &set);
  CHECK(count_mask(reinterpret_cast<const unsigned char*>(&set), sizeof set) == 3);
}

TEST_CASE("cpus: --jobs / ROCKPACK_JOBS text") {
  CHECK(*parse_jobs("3") == 3);
  CHECK(*parse_jobs(" 16\n") == 16);
  CHECK(parse_jobs("0") == std::nullopt);
  CHECK(parse_jobs("-2") == std::nullopt);
  CHECK(parse_jobs("two") == std::nullopt);
  CHECK(parse_jobs("1.5") == std::nullopt);
  CHECK(parse_jobs("100000") == std::nullopt);
}

TEST_CASE("cpus: the decision is the smaller of mask and rounded-up quota, unless overridden") {
  CHECK(decide(16, 16, 0, 0) == 16);
  CHECK(decide(16, 2, 0, 0) == 2);        // taskset -c 0,1 on a 16-CPU host
  CHECK(decide(16, 16, 1.5, 0) == 2);     // a pod with a 1500m CPU limit
  CHECK(decide(16, 16, 0.5, 0) == 1);     // never 0
  CHECK(decide(16, 16, 2.0, 0) == 2);
  CHECK(decide(16, 4, 8.0, 0) == 4);      // a quota above the mask does not add CPUs
  CHECK(decide(16, 0, 0, 0) == 16);       // no mask: the host's count
  CHECK(decide(0, 0, 0, 0) == 1);
  CHECK(decide(16, 2, 1.0, 6) == 6);      // --jobs wins
}

TEST_CASE("cpus: the cgroup directories from /proc/self/cgroup and mountinfo") {
  const char* mountinfo =
      "25 30 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
      "26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
      "28 25 0:25 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
      "29 25 0:26 / /sys/fs/cgroup/cpuset rw,nosuid - cgroup cgroup rw,cpuset\n"
      "30 25 0:27 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n";
  SUBCASE("v1 hybrid: the cpu hierarchy from the process's cgroup up, then the unified one") {
    auto dirs = quota_dirs("4:memory:/a\n3:cpu,cpuacct:/ci/job1\n2:cpuset:/\n0::/ci/job1\n", mountinfo);
    REQUIRE(dirs.size() == 6);
    CHECK(dirs[0].path == "/sys/fs/cgroup/cpu,cpuacct/ci/job1");
    CHECK(!dirs[0].v2);
    CHECK(dirs[1].path == "/sys/fs/cgroup/cpu,cpuacct/ci");
    CHECK(dirs[2].path == "/sys/fs/cgroup/cpu,cpuacct");
    CHECK(dirs[3].path == "/sys/fs/cgroup/unified/ci/job1");
    CHECK(dirs[3].v2);
    CHECK(dirs[5].path == "/sys/fs/cgroup/unified");
  }
  SUBCASE("v2 only, in a cgroup namespace") {
    auto dirs = quota_dirs("0::/\n", "40 30 0:30 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
    REQUIRE(dirs.size() == 1);
    CHECK(dirs[0].path == "/sys/fs/cgroup");
    CHECK(dirs[0].v2);
  }
  SUBCASE("a container's own cgroup bind-mounted: the mounted root is cut from the path") {
    auto dirs = quota_dirs("5:cpu:/docker/abc\n",
                           "50 40 0:31 /docker/abc /sys/fs/cgroup/cpu ro - cgroup cgroup rw,cpu\n");
    REQUIRE(dirs.size() == 1);
    CHECK(dirs[0].path == "/sys/fs/cgroup/cpu");
  }
  SUBCASE("an escaped space in the mount point") {
    auto dirs = quota_dirs("0::/x\n", "40 30 0:30 / /mnt/cg\\0402 rw - cgroup2 cgroup2 rw\n");
    REQUIRE(dirs.size() == 2);
    CHECK(dirs[0].path == "/mnt/cg 2/x");
  }
  SUBCASE("no cgroup mounts, garbage lines") {
    CHECK(quota_dirs("3:cpu:/x\n", "garbage\n\n1 2 3\n").empty());
    CHECK(quota_dirs("nonsense", mountinfo).empty());
  }
}

TEST_CASE("cpus: the smallest quota along the path, read from the files") {
  fs::path root = fs::temp_directory_path() / ("rp-cpus-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto put = [](const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  // v1: the parent limits to 1.5 CPUs, the child has none; v2 (hybrid): no cpu.max anywhere.
  put(root / "cpu/ci/job/cpu.cfs_quota_us", "-1\n");
  put(root / "cpu/ci/job/cpu.cfs_period_us", "100000\n");
  put(root / "cpu/ci/cpu.cfs_quota_us", "150000\n");
  put(root / "cpu/ci/cpu.cfs_period_us", "100000\n");
  put(root / "cpu/cpu.cfs_quota_us", "-1\n");
  put(root / "cpu/cpu.cfs_period_us", "100000\n");
  fs::create_directories(root / "unified/ci/job");
  std::string mountinfo = "28 25 0:25 / " + (root / "cpu").string() + " rw - cgroup cgroup rw,cpu\n" +
                          "26 25 0:23 / " + (root / "unified").string() + " rw - cgroup2 cgroup2 rw\n";
  std::string source;
  auto q = read_quota(quota_dirs("3:cpu:/ci/job\n0::/ci/job\n", mountinfo), &source);
  REQUIRE(q);
  CHECK(*q == doctest::Approx(1.5));
  CHECK(source == "cgroup v1 " + (root / "cpu/ci/cpu.cfs_quota_us").string());
  CHECK(decide(16, 16, *q, 0) == 2);

  // v2 at the leaf, tighter than v1's parent.
  put(root / "unified/ci/job/cpu.max", "50000 100000\n");
  q = read_quota(quota_dirs("3:cpu:/ci/job\n0::/ci/job\n", mountinfo), &source);
  REQUIRE(q);
  CHECK(*q == doctest::Approx(0.5));
  CHECK(source == "cgroup v2 " + (root / "unified/ci/job/cpu.max").string());

  // No quota anywhere.
  put(root / "unified/ci/job/cpu.max", "max 100000\n");
  put(root / "cpu/ci/cpu.cfs_quota_us", "-1\n");
  CHECK(read_quota(quota_dirs("3:cpu:/ci/job\n0::/ci/job\n", mountinfo), &source) == std::nullopt);
  fs::remove_all(root);
}

TEST_CASE("cpus: this process's budget is at least one worker and no more than its mask allows") {
  const rp::CpuBudget& b = rp::cpu_budget();
  CHECK(b.workers >= 1);
  if (!b.jobs && b.affinity) CHECK(b.workers <= b.affinity);
  CHECK(b.describe().find("worker") != std::string::npos);
}
