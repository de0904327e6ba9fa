#pragma once
// Fetching manifests and blobs from a repository: manifests into memory (bounded, digest checked),
// blobs streamed into the content store with their digest verified before they are kept.
#include <string>

#include "registry/transport.hpp"
#include "store/content_store.hpp"

namespace rp::registry {

struct FetchedManifest {
  std::string bytes;
  std::string media_type;
  std::string digest;  // sha256 of bytes
};

// GET /v2/<repo>/manifests/<identifier>, accepting OCI and Docker schema 2 manifests and indexes.
// When `identifier` is a digest, the bytes must hash to it.
FetchedManifest fetch_manifest(Transport& transport, const std::string& repository, const std::string& identifier);

// Downloads a blob into the store (unless it is there already). Retries broken transfers from the start.
void fetch_blob(Transport& transport, const std::string& repository, const std::string& digest, ContentStore& store);

}  // namespace rp::registry
