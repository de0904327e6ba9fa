#include "cli/registry_flags.hpp"

#include <algorithm>

namespace rp::cli {

registry::RegistryOptions registry_options(const RegistryFlags& flags) {
  registry::RegistryOptions o;
  o.insecure_registries = flags.insecure_registries;
  o.parallel = std::clamp(flags.parallel, 1, 16);
  return o;
}

}  // namespace rp::cli
