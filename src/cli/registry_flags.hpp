#pragma once
// Flags every command that talks to a registry shares (push, pull, login, build --push / base).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "registry/options.hpp"

namespace rp::cli {

struct RegistryFlags {
  std::vector<std::string> insecure_registries;
  int parallel = 4;
};

// Inline so that it compiles along with the command that uses it (GCC 12 reports a false
// -Wnull-dereference inside CLI11 when this stands alone in its own translation unit).
inline void add_registry_flags(CLI::App* cmd, RegistryFlags& flags) {
  cmd->add_option("--insecure-registry", flags.insecure_registries,
                  "HOST:PORT of a registry that may be reached over plain HTTP or unverified TLS (repeatable; "
                  "loopback registries always may)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--registry-parallel", flags.parallel, "Concurrent blob transfers, 1-16 (default 4)");
}
registry::RegistryOptions registry_options(const RegistryFlags& flags);

}  // namespace rp::cli
