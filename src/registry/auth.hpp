#pragma once
// Authorization for one registry: anonymous, Basic, or the Bearer token flow of the docker token
// spec. The registry says which in its WWW-Authenticate challenge; for Bearer, tokens are fetched
// from the realm for a set of scopes ("repository:app:pull,push"), cached per scope set until they
// expire, and refetched with a wider scope when the registry answers insufficient_scope.
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "registry/challenge.hpp"
#include "registry/credentials.hpp"
#include "net/http.hpp"
#include "net/retry.hpp"

namespace rp::registry {

using Scopes = std::vector<std::string>;

// "repository:<name>:<actions>"
std::string repository_scope(const std::string& repository, const std::string& actions);
// Adds `extra` scopes to `scopes`, merging the actions of scopes on the same resource.
// Returns true when `scopes` changed.
bool widen_scopes(Scopes& scopes, const Scopes& extra);

class Authenticator {
 public:
  // `registry`: as in references (for credential lookup and messages).
  // `allow_plain_http(host)`: whether a token realm on that host may be plain http.
  Authenticator(std::string registry, CredentialSources sources, net::RetryPolicy retry,
                std::function<bool(const std::string&)> allow_insecure);
  // Uses `credential` instead of looking one up.
  void set_credential(Credential credential);

  // Takes the challenges of a 401 answer to GET /v2/.
  void set_challenges(const std::vector<Challenge>& challenges);
  // The Authorization header value for a request needing `scopes`; fetches a token if needed.
  std::optional<std::string> authorization(const Scopes& scopes);
  // After a 401: learns from its challenge (new scheme, wider scope, expired token). Returns true when
  // retrying the request may now succeed; `scopes` may have been widened.
  bool on_unauthorized(const net::HttpResponse& response, Scopes& scopes);

 private:
  struct Token {
    std::string value;
    std::chrono::steady_clock::time_point expires;
  };
  const std::optional<Credential>& credential();
  Token fetch_token(const Scopes& scopes);
  static std::string key(const Scopes& scopes);

  std::string registry_;
  CredentialSources sources_;
  net::RetryPolicy retry_;
  std::function<bool(const std::string&)> allow_insecure_;

  std::mutex mu_;
  std::optional<Challenge> bearer_;
  bool basic_ = false;
  bool credential_loaded_ = false;
  std::optional<Credential> credential_;
  std::map<std::string, Token> tokens_;
};

}  // namespace rp::registry
