#include "registry/transport.hpp"

#include <spdlog/spdlog.h>

#include <thread>

#include "registry/errors.hpp"
#include "reference/reference.hpp"
#include "net/url.hpp"
#include "util/error.hpp"

namespace rp::registry {

Transport::Transport(std::string registry, const RegistryOptions& options)
    : registry_(registry),
      api_host_(registry == kDockerHub ? kDockerHubApiHost : registry),
      options_(options),
      auth_(registry, options.credentials, options.retry,
            [&options](const std::string& host) { return options.is_insecure(host); }) {
  if (auto it = options.explicit_credentials.find(registry); it != options.explicit_credentials.end())
    auth_.set_credential(it->second);
}

std::string Transport::base_url() {
  std::call_once(pinged_, [this] { ping(); });
  return base_url_;
}

namespace {
// "host:port" or "[v6]:port" -> the host alone.
std::string host_of(const std::string& host_and_port) {
  if (host_and_port.starts_with("[")) return host_and_port.substr(0, host_and_port.find(']') + 1);
  return host_and_port.substr(0, host_and_port.find(':'));
}
}  // namespace

// GET /v2/ tells whether the registry is there, whether it speaks TLS, and how it wants to be
// authenticated. Insecure registries (--insecure-registry, loopback) are tried with https first
// (unverified), then plain http, as docker does.
void Transport::ping() {
  bool insecure = options_.is_insecure(api_host_);
  std::vector<std::string> schemes = {"https"};
  if (insecure) schemes.push_back("http");
  std::string last_error;
  bool unresolved = false;
  for (const auto& scheme : schemes) {
    net::HttpRequest req;
    req.url = scheme + "://" + api_host_ + "/v2/";
    req.verify_tls = !insecure;
    // Probing https on a registry that may well be plain http must not hang on a server that never
    // answers a TLS handshake.
    if (insecure && scheme == "https") req.timeout_ms = 10000;
    net::HttpResponse resp;
    bool answered = false;
    for (int attempt = 1; attempt <= options_.retry.max_attempts; ++attempt) {
      try {
        resp = net::perform(req);
      } catch (const net::TransportError& e) {
        last_error = e.what();
        unresolved = e.name_unresolved();
        if (unresolved) break;  // DNS will not answer differently on a retry or over http
        // A plain-http server answering a TLS handshake fails at once: no point retrying https.
        if (e.tls_failure() || (insecure && scheme == "https")) break;
        if (attempt < options_.retry.max_attempts) std::this_thread::sleep_for(net::backoff_delay(options_.retry, attempt));
        continue;
      }
      if (net::is_retryable_status(resp.status) && attempt < options_.retry.max_attempts) {
        std::this_thread::sleep_for(net::retry_delay(options_.retry, attempt, resp.header("retry-after")));
        continue;
      }
      answered = true;
      break;
    }
    if (unresolved) break;
    if (!answered) continue;
    base_url_ = scheme + "://" + api_host_;
    verify_tls_ = scheme == "https" && !insecure;
    if (resp.status == 401) {
      std::vector<Challenge> challenges;
      for (const auto& h : resp.header_all("www-authenticate")) {
        auto parsed = parse_challenges(h);
        challenges.insert(challenges.end(), parsed.begin(), parsed.end());
      }
      auth_.set_challenges(challenges);
    } else if (!resp.ok() && resp.status != 404) {
      spdlog::debug("registry {}: GET /v2/ answered {}", registry_, resp.status);
    }
    return;
  }
  if (unresolved)
    throw rp::Error("cannot reach the registry " + registry_ + ": the host name " + host_of(api_host_) + " does not resolve",
                    "check the spelling of the registry host and your DNS settings (/etc/resolv.conf)");
  throw rp::Error("cannot reach the registry " + registry_ + ": " + last_error,
                  insecure ? "check that the registry runs and the host and port are right"
                           : "check the host name and the network; a registry without TLS needs --insecure-registry " +
                                 registry_);
}

net::HttpResponse Transport::send(net::HttpRequest req, Scopes scopes, const SendOptions& so) {
  std::string base = base_url();
  if (req.url.starts_with("/")) req.url = base + req.url;
  // TLS is verified unless the registry is insecure; a redirect to storage is verified regardless.
  req.verify_tls = verify_tls_ || !net::same_origin(req.url, base);

  int auth_retries = 0;
  for (int attempt = 1;;) {
    std::erase_if(req.headers, [](const auto& h) { return h.first == "Authorization"; });
    if (net::same_origin(req.url, base))
      if (auto a = auth_.authorization(scopes)) req.headers.emplace_back("Authorization", *a);
    if (so.before_attempt) so.before_attempt(req);

    net::HttpResponse resp;
    try {
      resp = net::perform(req);
    } catch (const net::TransportError& e) {
      if (!so.retry) throw;
      if (attempt >= options_.retry.max_attempts)
        throw net::TransportError("the connection to " + registry_ + " failed " + std::to_string(attempt) + " times: " + e.what(),
                             e.tls_failure(), "check the network and the registry; running the command again resumes the work");
      auto delay = net::backoff_delay(options_.retry, attempt);
      spdlog::info("{} {}: {}; retrying in {} ms", req.method, net::redact_url(req.url), e.what(), delay.count());
      std::this_thread::sleep_for(delay);
      ++attempt;
      continue;
    }
    if (resp.status == 401 && auth_retries < 2 && auth_.on_unauthorized(resp, scopes)) {
      ++auth_retries;
      continue;
    }
    if (so.retry && net::is_retryable_status(resp.status) && attempt < options_.retry.max_attempts) {
      auto retry_after = resp.header("retry-after");
      auto delay = net::retry_delay(options_.retry, attempt, retry_after);
      if (retry_after && net::parse_retry_after(*retry_after) > options_.retry.max_retry_after) return resp;
      spdlog::info("{} {}: registry answered {}; retrying in {} ms", req.method, net::redact_url(req.url), resp.status,
                   delay.count());
      std::this_thread::sleep_for(delay);
      ++attempt;
      continue;
    }
    return resp;
  }
}

Transport& Session::transport(const std::string& registry) {
  std::lock_guard lock(mu_);
  auto& t = transports_[registry];
  if (!t) t = std::make_unique<Transport>(registry, options_);
  return *t;
}

}  // namespace rp::registry
