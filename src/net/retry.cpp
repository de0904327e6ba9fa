#include "net/retry.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <random>

namespace rp::net {

bool is_retryable_status(long status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt) {
  double base = static_cast<double>(policy.initial_delay.count());
  for (int i = 1; i < attempt && base < static_cast<double>(policy.max_delay.count()); ++i) base *= 2;
  base = std::min(base, static_cast<double>(policy.max_delay.count()));
  static thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.75, 1.25);
  return std::chrono::milliseconds(static_cast<long long>(base * jitter(rng)));
}

std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value) {
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
    if (value.size() > 9) return std::chrono::hours(24);  // absurd; the caller caps it
    return std::chrono::seconds(std::stoll(value));
  }
  time_t when = curl_getdate(value.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  time_t now = std::time(nullptr);
  return std::chrono::seconds(when > now ? when - now : 0);
}

std::chrono::milliseconds retry_delay(const RetryPolicy& policy, int attempt,
                                      const std::optional<std::string>& retry_after) {
  auto backoff = backoff_delay(policy, attempt);
  if (retry_after) {
    if (auto ra = parse_retry_after(*retry_after))
      return std::min<std::chrono::milliseconds>(std::max(*ra, backoff), policy.max_retry_after);
  }
  return backoff;
}

}  // namespace rp::net
