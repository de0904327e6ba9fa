#pragma once
// Settings shared by every registry operation of one rockpack run.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "registry/credentials.hpp"
#include "net/retry.hpp"

namespace rp::registry {

struct RegistryOptions {
  // HOST:PORT of registries that may be spoken to in plain HTTP or with unverified TLS
  // (--insecure-registry). Loopback hosts are always allowed plain HTTP.
  std::vector<std::string> insecure_registries;
  CredentialSources credentials = CredentialSources::from_environment();
  // Credentials given for this run (rockpack login checks the new ones this way); they beat every file.
  std::map<std::string, Credential> explicit_credentials;
  net::RetryPolicy retry;
  int parallel = 4;  // concurrent blob transfers (GGCR uses 4, docker 5, containers/image 6)
  // Blobs up to this size go up in one PUT; larger ones in chunks of chunk_size, each a PATCH, so a
  // broken connection costs at most the unacknowledged part of one chunk.
  uint64_t monolithic_limit = 32ull << 20;
  uint64_t chunk_size = 128ull << 20;

  bool is_insecure(const std::string& host) const;
};

}  // namespace rp::registry
