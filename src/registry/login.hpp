#pragma once
// rockpack login: checks credentials against the registry, then stores them the way `docker login`
// does, so docker, podman (reading docker's file) and rockpack share one login.
#include <string>

#include "registry/options.hpp"

namespace rp::registry {

struct LoginResult {
  std::string stored_in;  // config file path or credential helper name
};

// `registry` as in references ("docker.io", "localhost:5000"). Throws rp::Error when the registry
// rejects the credentials; nothing is stored then.
LoginResult login(const std::string& registry, const std::string& username, const std::string& password,
                  const RegistryOptions& options);

// Accepts "HOST", "https://HOST/", "https://index.docker.io/v1/" and returns the registry as written
// in references. Throws InputError for something that is not a registry host.
std::string normalize_registry_argument(const std::string& text);

}  // namespace rp::registry
