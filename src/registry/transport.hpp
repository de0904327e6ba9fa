#pragma once
// One registry host, spoken to through the distribution API: picks http or https (pinging /v2/ once),
// authorizes every request for its scopes, and retries what is worth retrying (408/429/5xx and
// broken connections) with backoff, honouring Retry-After. Everything above it (pull, push, upload)
// deals in requests and answers only.
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "registry/auth.hpp"
#include "net/http.hpp"
#include "registry/options.hpp"

namespace rp::registry {

struct SendOptions {
  // Whether a broken connection or a 408/429/5xx answer is retried here. Off for requests that are
  // not safe to repeat blindly (an upload chunk: the caller asks the registry how much arrived).
  bool retry = true;
  // Called before every attempt, e.g. to start a fresh download sink.
  std::function<void(net::HttpRequest&)> before_attempt;
};

class Transport {
 public:
  // `registry` as written in references ("docker.io", "localhost:5000").
  Transport(std::string registry, const RegistryOptions& options);

  const std::string& registry() const { return registry_; }
  // "https://host:port" (or http for insecure/loopback registries that do not speak TLS).
  std::string base_url();
  // Sends a request whose URL is absolute or a path ("/v2/..."); handles auth and retries.
  // Throws net::TransportError (after the retries) when no answer came.
  net::HttpResponse send(net::HttpRequest request, Scopes scopes, const SendOptions& options = {});

 private:
  void ping();

  std::string registry_;
  std::string api_host_;
  const RegistryOptions& options_;
  Authenticator auth_;
  std::once_flag pinged_;
  std::string base_url_;
  bool verify_tls_ = true;
};

// A registry session: one Transport per registry, shared by the workers of an operation.
class Session {
 public:
  explicit Session(RegistryOptions options) : options_(std::move(options)) {}
  Transport& transport(const std::string& registry);
  const RegistryOptions& options() const { return options_; }

 private:
  RegistryOptions options_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Transport>> transports_;
};

}  // namespace rp::registry
