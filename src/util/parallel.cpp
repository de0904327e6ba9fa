#include "util/parallel.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace rp {

void run_parallel(const std::vector<std::function<void()>>& jobs, int workers) {
  if (jobs.empty()) return;
  size_t n = std::min(jobs.size(), static_cast<size_t>(std::max(1, workers)));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex mu;
  auto work = [&] {
    while (!failed) {
      size_t i = next++;
      if (i >= jobs.size()) return;
      try {
        jobs[i]();
      } catch (...) {
        std::lock_guard lock(mu);
        if (!first_error) first_error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(work);
  work();  // the calling thread is a worker too
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace rp
