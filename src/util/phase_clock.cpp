#include "util/phase_clock.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

namespace rp {

namespace {
double seconds_of(const rusage& u) {
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}
}  // namespace

CpuTimes cpu_times_now() {
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return {seconds_of(self), seconds_of(children)};
}

PhaseClock::PhaseClock() : wall_(std::chrono::steady_clock::now()), cpu_(cpu_times_now()) {}

double PhaseClock::wall_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_).count();
}

void PhaseClock::lap(const std::string& phase) {
  auto now = std::chrono::steady_clock::now();
  CpuTimes cpu = cpu_times_now();
  spdlog::debug("phase {}: {:.2f} s wall, {:.2f} s CPU, {:.2f} s CPU in child processes", phase,
                std::chrono::duration<double>(now - wall_).count(), cpu.self - cpu_.self, cpu.children - cpu_.children);
  wall_ = now;
  cpu_ = cpu;
}

}  // namespace rp
