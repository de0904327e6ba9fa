#pragma once
// Runs jobs on a few worker threads. The first failure stops the handing out of new jobs and is
// rethrown once the running ones are done; nothing is left running behind the caller's back.
#include <functional>
#include <vector>

namespace rp {

void run_parallel(const std::vector<std::function<void()>>& jobs, int workers);

}  // namespace rp
