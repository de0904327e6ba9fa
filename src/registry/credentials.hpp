#pragma once
// Where registry credentials come from, in the order they are consulted:
//   1. $REGISTRY_AUTH_FILE (podman/skopeo's explicit auth file), when set;
//   2. docker's config.json in $DOCKER_CONFIG (default ~/.docker): credHelpers[host], then credsStore,
//      then the inline "auths" entry (base64 user:password, or an identitytoken);
//   3. ${XDG_RUNTIME_DIR}/containers/auth.json (podman's login file; same format as "auths").
// The first source with an entry for the registry wins. No credential means anonymous access.
#include <filesystem>
#include <optional>
#include <string>

namespace rp::registry {

struct Credential {
  std::string username;
  std::string password;
  std::string identity_token;  // an OAuth refresh token (docker's "identitytoken")
  std::string registry_token;  // a bearer token to send as is ("registrytoken")
  std::string source;          // where it came from, for messages: "/home/u/.docker/config.json"
};

struct CredentialSources {
  std::filesystem::path docker_config_dir;  // holds config.json
  std::optional<std::filesystem::path> auth_file;    // $REGISTRY_AUTH_FILE
  std::optional<std::filesystem::path> podman_auth;  // ${XDG_RUNTIME_DIR}/containers/auth.json

  static CredentialSources from_environment();
};

// The key a registry has in config files and helpers: Docker Hub is "https://index.docker.io/v1/",
// every other registry its host[:port].
std::string config_key(const std::string& registry);

// Looks up the credential for `registry` (as written in references: "docker.io", "localhost:5000").
// Throws rp::Error when a config file is malformed or a configured helper fails.
std::optional<Credential> find_credential(const std::string& registry, const CredentialSources& sources);

// Stores a credential like `docker login`: through credHelpers[host] or credsStore when configured,
// else base64 in config.json "auths" (file mode 0600). Returns a description of where it went.
std::string store_credential(const std::string& registry, const Credential& credential, const CredentialSources& sources);

// Removes what store_credential stored, like `docker logout`: through the credential helper, or the
// "auths" entry of config.json. Returns where it was removed from; nullopt when there was nothing.
std::optional<std::string> erase_credential(const std::string& registry, const CredentialSources& sources);

}  // namespace rp::registry
