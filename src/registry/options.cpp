#include "registry/options.hpp"

#include <algorithm>

#include "reference/reference.hpp"

namespace rp::registry {

bool RegistryOptions::is_insecure(const std::string& host) const {
  if (is_loopback_host(host)) return true;
  return std::find(insecure_registries.begin(), insecure_registries.end(), host) != insecure_registries.end();
}

}  // namespace rp::registry
