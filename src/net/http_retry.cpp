#include "net/http_retry.hpp"

#include <spdlog/spdlog.h>

#include <thread>

#include "net/url.hpp"

namespace rp::net {

HttpResponse perform_with_retry(const HttpRequest& request, const RetryPolicy& policy) {
  int attempts = std::max(1, policy.max_attempts);
  for (int attempt = 1;; ++attempt) {
    std::optional<std::string> retry_after;
    try {
      net::HttpResponse response = net::perform(request);
      if (!net::is_retryable_status(response.status) || attempt >= attempts) return response;
      retry_after = response.header("retry-after");
      spdlog::debug("index: {} answered {}, retrying", net::redact_url(request.url), response.status);
    } catch (const net::TransportError& e) {
      if (attempt >= attempts) throw;
      spdlog::debug("index: {}, retrying", e.what());
    }
    std::this_thread::sleep_for(net::retry_delay(policy, attempt, retry_after));
  }
}

}  // namespace rp::net
