#pragma once
// Wall and CPU seconds of one phase of a build, for the -v log: where the plan stage's serial time
// goes (bench/rocm_bench.sh --scaling reads these lines). The CPU seconds are the whole process's
// (every thread), so a phase that keeps two cores busy shows twice its wall time.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <chrono>
#include <string_view>

namespace rp {

class PhaseTimer {
 public:
  PhaseTimer() : wall_(std::chrono::steady_clock::now()), cpu_(process_cpu_seconds()) {}

  double wall_seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_).count(); }
  double cpu_seconds() const { return process_cpu_seconds() - cpu_; }

  // "phase plan.resolution: 0.61 s wall, 0.20 s CPU", then the timer starts again (the next phase).
  void lap(std::string_view phase) {
    spdlog::debug("phase {}: {:.2f} s wall, {:.2f} s CPU", phase, wall_seconds(), cpu_seconds());
    *this = PhaseTimer();
  }

  // User and system CPU seconds of every thread of the process so far.
  static double process_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  }

 private:
  std::chrono::steady_clock::time_point wall_;
  double cpu_;
};

}  // namespace rp
