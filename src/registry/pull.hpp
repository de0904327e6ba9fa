#pragma once
// Pulling an image for one platform into the content store: the tag (or digest) is resolved, an
// image index or Docker manifest list is narrowed to the platform, and the config and layers the
// store does not have yet are downloaded in parallel, each verified against its digest.
#include <string>

#include <nlohmann/json.hpp>

#include "image/image.hpp"
#include "util/platform.hpp"
#include "registry/options.hpp"
#include "reference/reference.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"

namespace rp::registry {

struct PullResult {
  Image image;
  Reference reference;          // as asked, fully qualified
  std::string manifest_digest;  // the platform's image manifest
  std::string manifest_media_type;
  std::string index_digest;     // the index the tag pointed at, if it was one
  std::string config_digest;
  // The canonical name pinned to the digest: "localhost:5000/app@sha256:..."
  std::string pinned() const { return reference.name() + "@" + manifest_digest; }
};

// With `fetch_layers` false only the manifest and the config are fetched: the image's layer
// descriptors are known, its layer blobs are not in the store (a reader that needs only what the
// image is, e.g. a comparison taken from its build report).
PullResult pull_image(const Reference& reference, const Platform& platform, ContentStore& store, Session& session,
                      bool fetch_layers = true);

// The entry of an image index (or Docker manifest list) for `platform`; throws rp::Error listing the
// platforms the index has when none matches. Attestation entries (unknown/unknown) are skipped.
Descriptor select_platform(const nlohmann::json& index, const Platform& platform, const std::string& where);
PullResult pull_image(const Reference& reference, const Platform& platform, ContentStore& store,
                      const RegistryOptions& options);

}  // namespace rp::registry
