#pragma once
// When and how long to wait before trying a request again. The practice of mature clients
// (containers/image, go-containerregistry): retry 408, 429 and 5xx and broken connections, back off
// exponentially with jitter, honour Retry-After, give up after a bounded number of attempts.
#include <chrono>
#include <optional>
#include <string>

namespace rp::net {

struct RetryPolicy {
  int max_attempts = 5;
  std::chrono::milliseconds initial_delay{1000};
  std::chrono::milliseconds max_delay{30000};
  // A server asking for longer than this is not waited for: the attempt fails instead.
  std::chrono::seconds max_retry_after{120};
};

bool is_retryable_status(long status);
// The delay before attempt `attempt + 1` (attempt counts from 1): initial * 2^(attempt-1), capped,
// with +-25% jitter so parallel workers do not retry in lockstep.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt);
// Parses Retry-After: delta-seconds or an HTTP-date. nullopt when absent or unparseable.
std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value);
// What to actually wait: the server's Retry-After when it gave one (never less than the backoff, never
// more than max_retry_after), else the backoff.
std::chrono::milliseconds retry_delay(const RetryPolicy& policy, int attempt, const std::optional<std::string>& retry_after);

}  // namespace rp::net
