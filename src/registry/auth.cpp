#include "registry/auth.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "util/base64.hpp"
#include "registry/errors.hpp"
#include "net/url.hpp"
#include "util/error.hpp"

namespace rp::registry {

namespace {

// "repository:app:pull,push" -> ("repository:app", {"pull","push"}). The name may contain ':' (host:port).
std::pair<std::string, std::set<std::string>> split_scope(const std::string& scope) {
  auto colon = scope.rfind(':');
  if (colon == std::string::npos) return {scope, {}};
  std::set<std::string> actions;
  std::stringstream ss(scope.substr(colon + 1));
  std::string a;
  while (std::getline(ss, a, ','))
    if (!a.empty()) actions.insert(a);
  return {scope.substr(0, colon), actions};
}

std::string join_scope(const std::string& resource, const std::set<std::string>& actions) {
  std::string out = resource + ":";
  bool first = true;
  // pull before push reads best and is what registries echo.
  for (const char* a : {"pull", "push"})
    if (actions.count(a)) {
      out += (first ? "" : ",") + std::string(a);
      first = false;
    }
  for (const auto& a : actions)
    if (a != "pull" && a != "push") {
      out += (first ? "" : ",") + a;
      first = false;
    }
  return out;
}

}  // namespace

std::string repository_scope(const std::string& repository, const std::string& actions) {
  return "repository:" + repository + ":" + actions;
}

bool widen_scopes(Scopes& scopes, const Scopes& extra) {
  bool changed = false;
  for (const auto& e : extra) {
    auto [res, acts] = split_scope(e);
    bool merged = false;
    for (auto& s : scopes) {
      auto [sres, sacts] = split_scope(s);
      if (sres != res) continue;
      size_t before = sacts.size();
      sacts.insert(acts.begin(), acts.end());
      if (sacts.size() != before) {
        s = join_scope(sres, sacts);
        changed = true;
      }
      merged = true;
    }
    if (!merged) {
      scopes.push_back(join_scope(res, acts));
      changed = true;
    }
  }
  return changed;
}

Authenticator::Authenticator(std::string registry, CredentialSources sources, net::RetryPolicy retry,
                             std::function<bool(const std::string&)> allow_insecure)
    : registry_(std::move(registry)), sources_(std::move(sources)), retry_(retry), allow_insecure_(std::move(allow_insecure)) {}

void Authenticator::set_credential(Credential credential) {
  std::lock_guard lock(mu_);
  credential_ = std::move(credential);
  credential_loaded_ = true;
}

std::string Authenticator::key(const Scopes& scopes) {
  Scopes sorted = scopes;
  std::sort(sorted.begin(), sorted.end());
  std::string k;
  for (const auto& s : sorted) k += s + " ";
  return k;
}

const std::optional<Credential>& Authenticator::credential() {
  if (!credential_loaded_) {
    credential_ = find_credential(registry_, sources_);
    credential_loaded_ = true;
    if (credential_) spdlog::debug("registry {}: using credentials from {}", registry_, credential_->source);
  }
  return credential_;
}

void Authenticator::set_challenges(const std::vector<Challenge>& challenges) {
  std::lock_guard lock(mu_);
  for (const auto& c : challenges) {
    if (c.scheme == "bearer" && !c.param("realm").empty()) bearer_ = c;
    if (c.scheme == "basic") basic_ = true;
  }
}

std::optional<std::string> Authenticator::authorization(const Scopes& scopes) {
  std::lock_guard lock(mu_);
  if (bearer_) {
    const auto& cred = credential();
    if (cred && !cred->registry_token.empty()) return "Bearer " + cred->registry_token;
    std::string k = key(scopes);
    auto it = tokens_.find(k);
    // A token about to expire is replaced before use rather than after a 401.
    if (it == tokens_.end() || it->second.expires <= std::chrono::steady_clock::now() + std::chrono::seconds(5))
      it = tokens_.insert_or_assign(k, fetch_token(scopes)).first;
    return "Bearer " + it->second.value;
  }
  if (basic_) {
    const auto& cred = credential();
    if (cred && !cred->username.empty()) return "Basic " + base64_encode(cred->username + ":" + cred->password);
  }
  return std::nullopt;
}

bool Authenticator::on_unauthorized(const net::HttpResponse& response, Scopes& scopes) {
  std::vector<Challenge> challenges;
  for (const auto& h : response.header_all("www-authenticate")) {
    auto parsed = parse_challenges(h);
    challenges.insert(challenges.end(), parsed.begin(), parsed.end());
  }
  std::lock_guard lock(mu_);
  bool learned = false;
  for (const auto& c : challenges) {
    if (c.scheme == "bearer" && !c.param("realm").empty()) {
      if (!bearer_) learned = true;
      bearer_ = c;
      // The registry names the scope it wants; asking for it (merged with ours) is how
      // insufficient_scope is cured, e.g. pull on the source repository of a mount.
      if (!c.param("scope").empty()) {
        Scopes wanted;
        std::stringstream ss(c.param("scope"));
        std::string s;
        while (ss >> s) wanted.push_back(s);
        if (widen_scopes(scopes, wanted)) learned = true;
      }
      // The token we sent may have expired or been revoked: fetch a fresh one once.
      if (auto it = tokens_.find(key(scopes)); it != tokens_.end()) {
        tokens_.erase(it);
        learned = true;
      }
    } else if (c.scheme == "basic") {
      if (!basic_) learned = true;
      basic_ = true;
    }
  }
  return learned;
}

Authenticator::Token Authenticator::fetch_token(const Scopes& scopes) {
  const Challenge& ch = *bearer_;
  std::string realm = ch.param("realm");
  const std::string realm_scheme = net::url_scheme(realm), realm_host = net::host_port(realm);
  if (realm_scheme != "https" && !(realm_scheme == "http" && allow_insecure_(realm_host)))
    throw rp::Error("the registry " + registry_ + " sends clients for tokens to " + net::redact_url(realm) +
                        ", which is not an https URL",
                    "use --insecure-registry " + realm_host + " if that server is trusted");

  const auto& cred = credential();
  net::HttpRequest req;
  req.verify_tls = !allow_insecure_(realm_host) || realm_scheme != "https";
  req.max_body = 1u << 20;  // a token response is small; more is an error (containers/image: 1 MiB)
  if (cred && !cred->identity_token.empty()) {
    // OAuth2 refresh-token grant, as docker does with an identity token.
    req.method = "POST";
    req.url = realm;
    req.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    req.body = "grant_type=refresh_token&client_id=rockpack&refresh_token=" + net::url_encode(cred->identity_token);
    if (!ch.param("service").empty()) req.body += "&service=" + net::url_encode(ch.param("service"));
    for (const auto& s : scopes) req.body += "&scope=" + net::url_encode(s);
  } else {
    req.url = realm;
    if (!ch.param("service").empty()) req.url = net::add_query(req.url, "service", ch.param("service"));
    for (const auto& s : scopes) req.url = net::add_query(req.url, "scope", s);
    if (cred && !cred->username.empty()) {
      req.url = net::add_query(req.url, "account", cred->username);
      req.headers.emplace_back("Authorization", "Basic " + base64_encode(cred->username + ":" + cred->password));
    }
  }

  net::HttpResponse resp;
  for (int attempt = 1;; ++attempt) {
    try {
      resp = net::perform(req);
      if (!net::is_retryable_status(resp.status) || attempt >= retry_.max_attempts) break;
    } catch (const net::TransportError& e) {
      if (attempt >= retry_.max_attempts)
        throw rp::Error("cannot reach the token server of " + registry_ + ": " + e.what());
    }
    std::this_thread::sleep_for(net::retry_delay(retry_, attempt, resp.header("retry-after")));
  }
  if (resp.status == 401 || resp.status == 403) {
    rp::Error e = registry_error(resp, "authentication to " + registry_ + (cred ? " with credentials from " + cred->source : " (anonymous)"), registry_);
    throw rp::Error(e.what(), cred ? "the credentials were rejected: log in again with: rockpack login " + registry_
                                   : "log in with: rockpack login " + registry_);
  }
  if (!resp.ok()) throw registry_error(resp, "fetching a token for " + registry_, registry_);

  auto j = nlohmann::json::parse(resp.body, nullptr, false);
  Token t;
  if (j.is_object()) {
    t.value = j.value("token", "");
    if (t.value.empty()) t.value = j.value("access_token", "");
  }
  if (t.value.empty()) throw rp::Error("the token server of " + registry_ + " answered without a token");
  int expires_in = 60;  // the spec's default
  if (j.contains("expires_in") && j["expires_in"].is_number_integer()) expires_in = std::max(1, j["expires_in"].get<int>());
  t.expires = std::chrono::steady_clock::now() + std::chrono::seconds(expires_in);
  spdlog::debug("registry {}: got a token for [{}] valid {} s", registry_, key(scopes), expires_in);
  return t;
}

}  // namespace rp::registry
