#include "registry/referrers.hpp"

#include <nlohmann/json.hpp>

#include "image/image.hpp"
#include "image/media_types.hpp"
#include "registry/auth.hpp"
#include "registry/errors.hpp"
#include "registry/manifest_fetch.hpp"
#include "registry/push.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::registry {

namespace {

constexpr const char* kEmptyMediaType = "application/vnd.oci.empty.v1+json";
constexpr const char* kEmptyConfig = "{}";

nlohmann::json descriptor_json(const Descriptor& d) {
  return {{"mediaType", d.media_type}, {"digest", d.digest}, {"size", d.size}};
}

// True when the registry answers the referrers API for this repository.
bool has_referrers_api(Transport& t, const std::string& repository, const std::string& digest) {
  net::HttpRequest req;
  req.method = "GET";
  req.url = "/v2/" + repository + "/referrers/" + digest;
  req.headers.emplace_back("Accept", media::kOciIndex);
  net::HttpResponse r = t.send(req, {repository_scope(repository, "pull")});
  return r.status == 200;
}

}  // namespace

std::string artifact_manifest(const Descriptor& subject, const std::string& artifact_type, const Descriptor& blob) {
  nlohmann::json m = {{"schemaVersion", 2},
                      {"mediaType", media::kOciManifest},
                      {"artifactType", artifact_type},
                      {"config", {{"mediaType", kEmptyMediaType}, {"digest", sha256_digest(kEmptyConfig)}, {"size", 2}}},
                      {"layers", {descriptor_json(blob)}},
                      {"subject", descriptor_json(subject)}};
  return canonical_json(m);
}

AttachedReferrer attach_referrer(const Reference& repository, const Descriptor& subject, const std::string& artifact_type,
                                 const std::string& bytes, ContentStore& store, Session& session) {
  Descriptor blob;
  blob.media_type = artifact_type;
  blob.digest = store.put(bytes);
  blob.size = static_cast<int64_t>(bytes.size());

  SealedImage artifact;
  artifact.config_bytes = kEmptyConfig;
  artifact.config.media_type = kEmptyMediaType;
  artifact.config.digest = sha256_digest(kEmptyConfig);
  artifact.config.size = 2;
  artifact.layers.push_back(ImageLayer{blob, blob.digest, static_cast<uint64_t>(bytes.size())});
  artifact.manifest_bytes = artifact_manifest(subject, artifact_type, blob);
  artifact.manifest.media_type = media::kOciManifest;
  artifact.manifest.digest = sha256_digest(artifact.manifest_bytes);
  artifact.manifest.size = static_cast<int64_t>(artifact.manifest_bytes.size());

  AttachedReferrer out;
  out.digest = artifact.manifest.digest;
  Reference by_digest = repository.with_digest(artifact.manifest.digest);
  push_image(artifact, store, {by_digest}, session);

  Transport& t = session.transport(repository.registry);
  if (has_referrers_api(t, repository.repository, subject.digest)) return out;

  // The fallback tag: the index it names (if any) keeps its other referrers; this one is added once.
  out.used_tag_fallback = true;
  out.fallback_tag = "sha256-" + subject.digest.substr(7);
  nlohmann::json index = {{"schemaVersion", 2}, {"mediaType", media::kOciIndex}, {"manifests", nlohmann::json::array()}};
  try {
    FetchedManifest existing = fetch_manifest(t, repository.repository, out.fallback_tag);
    auto parsed = nlohmann::json::parse(existing.bytes, nullptr, false);
    if (parsed.is_object() && parsed.value("manifests", nlohmann::json()).is_array()) index["manifests"] = parsed["manifests"];
  } catch (const rp::Error&) {
    // No such tag yet (or not an index): start a new one.
  }
  nlohmann::json entry = descriptor_json(artifact.manifest);
  entry["artifactType"] = artifact_type;
  bool listed = false;
  for (const auto& m : index["manifests"])
    if (m.is_object() && m.value("digest", "") == artifact.manifest.digest) listed = true;
  if (!listed) index["manifests"].push_back(entry);
  push_index(canonical_json(index), media::kOciIndex, {artifact}, store, {repository.with_tag(out.fallback_tag)}, session);
  return out;
}

}  // namespace rp::registry
