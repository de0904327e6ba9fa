#pragma once
// Wall and CPU time of one phase of a build, for the debug log: the lines
// `phase NAME: W s wall, C s CPU, K s CPU in child processes` that bench/apt_latency_bench.sh reads
// to say where a build's time goes. CPU counts every thread of this process; "child processes" are
// the ones waited for meanwhile (the sandbox's runtime and whatever ran in it, e.g. dpkg and the
// maintainer scripts), which the process's own CPU leaves out.
#include <chrono>
#include <string>

namespace rp {

struct CpuTimes {
  double self = 0;      // user + system seconds of this process (all threads)
  double children = 0;  // user + system seconds of the child processes waited for
};
CpuTimes cpu_times_now();

class PhaseClock {
 public:
  PhaseClock();
  // Logs the phase since the last lap (or the clock's start) at debug level, and starts the next.
  void lap(const std::string& phase);
  // Wall seconds since the last lap (or the clock's start).
  double wall_seconds() const;

 private:
  std::chrono::steady_clock::time_point wall_;
  CpuTimes cpu_;
};

}  // namespace rp
