#include "registry/login.hpp"

#include "registry/errors.hpp"
#include "reference/reference.hpp"
#include "registry/transport.hpp"
#include "util/error.hpp"

namespace rp::registry {

std::string normalize_registry_argument(const std::string& text) {
  std::string host = text;
  if (auto p = host.find("://"); p != std::string::npos) host = host.substr(p + 3);
  if (auto p = host.find('/'); p != std::string::npos) host = host.substr(0, p);
  if (host.empty() || host.find('@') != std::string::npos)
    throw InputError("invalid registry '" + text + "'", "give the registry host, e.g. rockpack login ghcr.io");
  if (host == "index.docker.io" || host == "registry-1.docker.io") host = kDockerHub;
  // Reuse the reference grammar for the host part.
  (void)parse_reference(host + "/x");
  return host;
}

LoginResult login(const std::string& registry, const std::string& username, const std::string& password,
                  const RegistryOptions& options) {
  if (username.empty()) throw InputError("no user name given", "pass one with -u USER");
  if (password.empty()) throw InputError("no password given", "pipe it in: echo \"$TOKEN\" | rockpack login HOST -u USER --password-stdin");
  RegistryOptions opts = options;
  Credential cred;
  cred.username = username;
  cred.password = password;
  cred.source = "the command line";
  opts.explicit_credentials[registry] = cred;

  // GET /v2/ with the credentials: a token fetch (Bearer) or the Basic check proves them.
  Session session(opts);
  Transport& t = session.transport(registry);
  net::HttpRequest req;
  req.url = "/v2/";
  net::HttpResponse r = t.send(req, {});
  if (r.status == 401 || r.status == 403)
    throw rp::Error("login to " + registry + " failed: the registry rejected the user name or password",
                    "check them; nothing was stored");
  if (!r.ok()) throw registry_error(r, "login to " + registry, registry);

  LoginResult result;
  result.stored_in = store_credential(registry, cred, options.credentials);
  return result;
}

}  // namespace rp::registry
