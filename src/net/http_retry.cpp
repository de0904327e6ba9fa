#include "net/http_retry.hpp"

#include <spdlog/spdlog.h>

#include <thread>

#include "net/url.hpp"

namespace rp::net {

HttpResponse perform_with_retry(const HttpRequest& request, const RetryPolicy& policy, int* sent) {
  int attempts = std::max(1, policy.max_attempts);
  for (int attempt = 1;; ++attempt) {
    std::optional<std::string> retry_after;
    try {
      net::HttpResponse response = net::perform(request);
      if (sent) *sent = attempt;
      if (!net::is_retryable_status(response.status) || attempt >= attempts) return response;
      retry_after = response.header("retry-after");
      // A server asking for longer than the policy allows is not waited for.
      if (retry_after) {
        auto asked = net::parse_retry_after(*retry_after);
        if (asked && *asked > policy.max_retry_after) return response;
      }
      spdlog::debug("index: {} answered {}, retrying", net::redact_url(request.url), response.status);
    } catch (const net::TransportError& e) {
      if (attempt >= attempts) {
        if (attempt == 1) throw;
        throw net::TransportError(std::string(e.what()) + attempts_note(attempt), e.tls_failure(), e.hint(),
                                  e.name_unresolved());
      }
      spdlog::debug("index: {}, retrying", e.what());
    }
    std::this_thread::sleep_for(net::retry_delay(policy, attempt, retry_after));
  }
}

std::string attempts_note(int attempts) {
  return attempts > 1 ? ", after " + std::to_string(attempts) + " attempts" : "";
}

}  // namespace rp::net
