#pragma once
// Pushing a sealed image (or an index of them) to one or more references. Blobs go first, in
// parallel, each by the cheapest way (already there / mounted / uploaded, see blob_upload.hpp);
// then the manifest, once per tag; an index only after all its children. Rerunning an interrupted
// push sends only what did not arrive.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "image/image.hpp"
#include "registry/options.hpp"
#include "reference/reference.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"

namespace rp::registry {

struct PushStats {
  int blobs_uploaded = 0;
  int blobs_existing = 0;
  int blobs_mounted = 0;
  uint64_t bytes_uploaded = 0;
};

struct PushResult {
  std::string digest;               // of the manifest (or index) pushed
  std::vector<std::string> pushed;  // "registry/repo:tag@digest" for every reference
  PushStats stats;
  // The OCI-Subject header of the last manifest PUT's answer (distribution-spec 1.1: the registry
  // indexed the manifest's `subject` for the referrers API); empty when the registry sent none.
  std::string oci_subject;
};

// Every reference gets the image: references in the same repository share the blob uploads.
// A reference without tag or digest is pushed as :latest; one with only a digest is pushed by digest.
// Layer bytes come from `store`, or, when `layout_dir` is given, straight from that OCI layout's
// blobs/ directory (no copy into the store first). The store also keeps which repositories hold
// which blob, for cross-repository mounts.
// A layer the store lacks (a registry layer cache's, see layer_cache.hpp) is found in the repository
// or mounted; only when neither works is `fetch_missing` asked to bring it into the store, and
// without one that is an error.
using MissingBlobFetcher = std::function<void(const std::string& digest)>;
PushResult push_image(const SealedImage& image, const ContentStore& store, const std::vector<Reference>& references,
                      Session& session, const std::filesystem::path& layout_dir = {},
                      const MissingBlobFetcher& fetch_missing = {});
PushResult push_image(const SealedImage& image, const ContentStore& store, const std::vector<Reference>& references,
                      const RegistryOptions& options);

// A multi-platform image: `index_bytes` (an OCI image index or Docker manifest list of type
// `media_type`, listing `children` by digest). Children go first, by digest; the index last, by tag.
PushResult push_index(const std::string& index_bytes, const std::string& media_type,
                      const std::vector<SealedImage>& children, const ContentStore& store,
                      const std::vector<Reference>& references, Session& session,
                      const std::filesystem::path& layout_dir = {});

}  // namespace rp::registry
