#include "registry/credentials.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "util/base64.hpp"
#include "registry/credential_helper.hpp"
#include "reference/reference.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp::registry {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Docker normalises config keys to a bare host: "https://host/v1/" and "host" name the same registry.
std::string key_host(std::string key) {
  if (auto p = key.find("://"); p != std::string::npos) key = key.substr(p + 3);
  if (auto p = key.find('/'); p != std::string::npos) key = key.substr(0, p);
  if (key == "index.docker.io" || key == "registry-1.docker.io") key = kDockerHub;
  return key;
}

std::optional<json> load_json_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  auto j = json::parse(read_file(path), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw rp::Error("the credentials file " + path.string() + " is not a JSON object",
                    "fix or remove the file (docker/podman login rewrite it)");
  return j;
}

// An "auths" entry -> Credential. Never puts the secret into an error message.
std::optional<Credential> from_auths_entry(const json& entry, const fs::path& file) {
  if (!entry.is_object()) return std::nullopt;
  Credential c;
  c.source = file.string();
  if (auto it = entry.find("identitytoken"); it != entry.end() && it->is_string() && !it->get<std::string>().empty())
    c.identity_token = it->get<std::string>();
  if (auto it = entry.find("registrytoken"); it != entry.end() && it->is_string() && !it->get<std::string>().empty())
    c.registry_token = it->get<std::string>();
  if (auto it = entry.find("auth"); it != entry.end() && it->is_string() && !it->get<std::string>().empty()) {
    auto decoded = base64_decode(it->get<std::string>());
    auto colon = decoded ? decoded->find(':') : std::string::npos;
    if (!decoded || colon == std::string::npos)
      throw rp::Error("the \"auth\" entry in " + file.string() + " is not base64 of user:password",
                      "log in again with: rockpack login HOST");
    c.username = decoded->substr(0, colon);
    c.password = decoded->substr(colon + 1);
  } else {
    if (auto u = entry.find("username"); u != entry.end() && u->is_string()) c.username = u->get<std::string>();
    if (auto p = entry.find("password"); p != entry.end() && p->is_string()) c.password = p->get<std::string>();
  }
  if (c.username.empty() && c.password.empty() && c.identity_token.empty() && c.registry_token.empty())
    return std::nullopt;
  return c;
}

std::optional<Credential> from_auths(const json& config, const std::string& registry, const fs::path& file) {
  auto auths = config.find("auths");
  if (auths == config.end() || !auths->is_object()) return std::nullopt;
  // An exact key first, then any key that normalises to the same host.
  if (auto it = auths->find(config_key(registry)); it != auths->end())
    if (auto c = from_auths_entry(*it, file)) return c;
  for (auto& [k, v] : auths->items())
    if (key_host(k) == registry)
      if (auto c = from_auths_entry(v, file)) return c;
  return std::nullopt;
}

std::optional<Credential> from_helper(const std::string& helper, const std::string& registry) {
  HelperResult r = run_credential_helper(helper, "get", config_key(registry));
  if (r.exit_code != 0) {
    // "credentials not found" is how helpers say "anonymous".
    if (r.output.find("not found") != std::string::npos || r.output.empty()) return std::nullopt;
    std::string first_line = r.output.substr(0, r.output.find('\n')).substr(0, 200);
    throw rp::Error("the credential helper docker-credential-" + helper + " failed for " + registry + " (exit " +
                        std::to_string(r.exit_code) + "): " + first_line,
                    "check the helper, or remove it from the docker config");
  }
  auto j = json::parse(r.output, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw rp::Error("the credential helper docker-credential-" + helper + " returned something that is not JSON",
                    "check the helper");
  Credential c;
  c.source = "docker-credential-" + helper;
  std::string user = j.value("Username", "");
  std::string secret = j.value("Secret", "");
  if (user.empty() && secret.empty()) return std::nullopt;
  // By convention a "<token>" user means the secret is an identity (refresh) token.
  if (user == "<token>") {
    c.identity_token = secret;
  } else {
    c.username = user;
    c.password = secret;
  }
  return c;
}

// The helper configured for `registry` in a docker config, if any: credHelpers beats credsStore.
std::string helper_for(const json& config, const std::string& registry) {
  if (auto helpers = config.find("credHelpers"); helpers != config.end() && helpers->is_object()) {
    for (auto& [k, v] : helpers->items())
      if ((k == config_key(registry) || key_host(k) == registry) && v.is_string()) return v.get<std::string>();
  }
  if (auto store = config.find("credsStore"); store != config.end() && store->is_string()) return store->get<std::string>();
  return {};
}

std::optional<Credential> from_auth_file(const fs::path& path, const std::string& registry) {
  auto j = load_json_file(path);
  return j ? from_auths(*j, registry, path) : std::nullopt;
}

}  // namespace

CredentialSources CredentialSources::from_environment() {
  CredentialSources s;
  if (const char* dc = std::getenv("DOCKER_CONFIG"); dc && *dc) {
    s.docker_config_dir = dc;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    s.docker_config_dir = fs::path(home) / ".docker";
  } else {
    s.docker_config_dir = ".docker";
  }
  if (const char* af = std::getenv("REGISTRY_AUTH_FILE"); af && *af) s.auth_file = fs::path(af);
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg)
    s.podman_auth = fs::path(xdg) / "containers" / "auth.json";
  return s;
}

std::string config_key(const std::string& registry) {
  return registry == kDockerHub ? "https://index.docker.io/v1/" : registry;
}

std::optional<Credential> find_credential(const std::string& registry, const CredentialSources& sources) {
  if (sources.auth_file)
    if (auto c = from_auth_file(*sources.auth_file, registry)) return c;

  fs::path docker_config = sources.docker_config_dir / "config.json";
  if (auto config = load_json_file(docker_config)) {
    std::string helper = helper_for(*config, registry);
    if (!helper.empty())
      if (auto c = from_helper(helper, registry)) return c;
    if (auto c = from_auths(*config, registry, docker_config)) return c;
  }

  if (sources.podman_auth)
    if (auto c = from_auth_file(*sources.podman_auth, registry)) return c;
  return std::nullopt;
}

std::string store_credential(const std::string& registry, const Credential& credential, const CredentialSources& sources) {
  fs::path docker_config = sources.docker_config_dir / "config.json";
  json config = load_json_file(docker_config).value_or(json::object());

  std::string helper = helper_for(config, registry);
  if (!helper.empty()) {
    json input = {{"ServerURL", config_key(registry)}, {"Username", credential.username}, {"Secret", credential.password}};
    HelperResult r = run_credential_helper(helper, "store", input.dump());
    if (r.exit_code != 0)
      throw rp::Error("the credential helper docker-credential-" + helper + " could not store the credentials for " +
                          registry + " (exit " + std::to_string(r.exit_code) + ")",
                      "check the helper, or remove it from " + docker_config.string());
    return "docker-credential-" + helper;
  }

  if (!config.contains("auths") || !config["auths"].is_object()) config["auths"] = json::object();
  config["auths"][config_key(registry)] = {{"auth", base64_encode(credential.username + ":" + credential.password)}};
  std::error_code ec;
  if (!fs::exists(sources.docker_config_dir, ec)) {
    fs::create_directories(sources.docker_config_dir, ec);
    if (ec) throw rp::Error("cannot create " + sources.docker_config_dir.string() + ": " + ec.message());
    ::chmod(sources.docker_config_dir.c_str(), 0700);
  }
  // The file holds secrets: created 0600 and never readable by others, even for a moment.
  write_file_atomic(docker_config, config.dump(1, '\t') + "\n", 0600);
  return docker_config.string();
}

std::optional<std::string> erase_credential(const std::string& registry, const CredentialSources& sources) {
  fs::path docker_config = sources.docker_config_dir / "config.json";
  auto loaded = load_json_file(docker_config);
  if (!loaded) return std::nullopt;
  json config = *loaded;
  std::string helper = helper_for(config, registry);
  if (!helper.empty()) {
    HelperResult r = run_credential_helper(helper, "erase", config_key(registry));
    if (r.exit_code != 0) return std::nullopt;  // helpers answer "credentials not found" with a failure
    return "docker-credential-" + helper;
  }
  if (!config.contains("auths") || !config["auths"].is_object() || !config["auths"].contains(config_key(registry)))
    return std::nullopt;
  config["auths"].erase(config_key(registry));
  write_file_atomic(docker_config, config.dump(1, '\t') + "\n", 0600);
  return docker_config.string();
}

}  // namespace rp::registry
