#pragma once
// Attaching an artifact (an SBOM) to an image in a registry as an OCI referrer (image-spec 1.1):
// an image manifest with `artifactType`, the empty config `{}`, one layer (the artifact's bytes)
// and `subject` = the image's manifest descriptor, pushed by digest to the image's repository.
// Registries without the referrers API (GET /v2/<name>/referrers/<digest> answers 404, as
// distribution 2.8 does) get the fallback of distribution-spec 1.1: the tag `sha256-<hex>` names an
// image index listing every referrer of that image; this one is added to what the tag held.
#include <optional>
#include <string>

#include "image/descriptor.hpp"
#include "reference/reference.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"

namespace rp::registry {

struct AttachedReferrer {
  std::string digest;         // of the artifact manifest
  bool used_tag_fallback = false;
  std::string fallback_tag;   // "sha256-<hex>" when used
};

// The artifact manifest's exact bytes (canonical JSON), for tests and for pushing.
std::string artifact_manifest(const Descriptor& subject, const std::string& artifact_type, const Descriptor& blob);

// `repository` is where the subject lives ("registry/repo", no tag). `bytes` go into `store`.
AttachedReferrer attach_referrer(const Reference& repository, const Descriptor& subject, const std::string& artifact_type,
                                 const std::string& bytes, ContentStore& store, Session& session);

// The bytes of the newest artifact of `artifact_type` attached to `subject_digest` in `repository`:
// listed by the referrers API, or else by the sha256-<hex> fallback tag (the last one listed wins).
// The artifact manifest is fetched by digest and must name the subject; its one layer is fetched
// into `store` (digest verified) and read back. nullopt when the image has no such referrer; throws
// rp::Error when the artifact is larger than `max_bytes` or its manifest is malformed.
std::optional<std::string> find_referrer_artifact(const Reference& repository, const std::string& subject_digest,
                                                  const std::string& artifact_type, ContentStore& store,
                                                  Session& session, uint64_t max_bytes);

}  // namespace rp::registry
