#include "registry/referrers.hpp"

#include <nlohmann/json.hpp>
#include <optional>

#include "image/image.hpp"
#include "image/media_types.hpp"
#include "net/url.hpp"
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

// The referrers API's index for `digest` (GET /v2/<name>/referrers/<digest>, distribution-spec
// 1.1), or nullopt when the registry does not answer it (404 on distribution 2.8) or answers
// something that is not an image index. With `artifact_type`, the registry is asked to filter
// (?artifactType=); whether it did (OCI-Filters-Applied) does not matter: callers filter themselves.
// Pages (Link: <...>; rel="next") are followed, at most 100.
std::optional<nlohmann::json> referrers_api_index(Transport& t, const std::string& repository, const std::string& digest,
                                                  const std::string& artifact_type = "") {
  net::HttpRequest req;
  req.method = "GET";
  req.url = "/v2/" + repository + "/referrers/" + digest;
  if (!artifact_type.empty()) req.url += "?artifactType=" + net::url_encode(artifact_type, "");
  req.headers.emplace_back("Accept", media::kOciIndex);
  std::optional<nlohmann::json> out;
  for (int page = 0; page < 100; ++page) {
    net::HttpResponse r = t.send(req, {repository_scope(repository, "pull")});
    if (r.status != 200) return out;
    auto parsed = nlohmann::json::parse(r.body, nullptr, false);
    if (!parsed.is_object() || !parsed.value("manifests", nlohmann::json()).is_array()) return out;
    if (!out) {
      out = parsed;
    } else {
      for (auto& m : parsed["manifests"]) (*out)["manifests"].push_back(std::move(m));
    }
    // The next page: a Link header's URL, relative to the registry (RFC 8288, as the spec's example).
    auto link = r.header("link");
    if (!link || link->find("rel=\"next\"") == std::string::npos) break;
    auto open = link->find('<'), close = link->find('>');
    if (open == std::string::npos || close == std::string::npos || close < open) break;
    std::string next = link->substr(open + 1, close - open - 1);
    if (!next.starts_with("/v2/" + repository + "/referrers/")) break;  // only this API, only this repository
    req.url = next;
  }
  return out;
}

}  // namespace

std::string artifact_manifest(const Descriptor& subject, const std::string& artifact_type, const Descriptor& blob) {
  nlohmann::json m = {{"schemaVersion", 2},
                      {"mediaType", media::kOciManifest},
                      {"artifactType", artifact_type},
                      {"config", {{"mediaType", kEmptyMediaType}, {"digest", sha256_digest(kEmptyConfig)}, {"size", 2}}},
                      {"layers", {blob.to_bare_json()}},
                      {"subject", subject.to_bare_json()}};
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
  PushResult pushed = push_image(artifact, store, {by_digest}, session);

  // distribution-spec 1.1: a registry that indexed the subject says so with OCI-Subject on the PUT's
  // answer; then the fallback tag must not be written. Without the header, a registry whose
  // referrers API lists this manifest already (registries of the 1.1 release candidates answer the
  // API without sending the header) needs no tag either. Otherwise: the tag.
  Transport& t = session.transport(repository.registry);
  if (pushed.oci_subject == subject.digest) return out;
  if (auto listed = referrers_api_index(t, repository.repository, subject.digest, artifact_type)) {
    for (const auto& m : (*listed)["manifests"])
      if (m.is_object() && m.value("digest", nlohmann::json()) == artifact.manifest.digest) return out;
  }

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
  nlohmann::json entry = artifact.manifest.to_bare_json();
  entry["artifactType"] = artifact_type;
  bool listed = false;
  for (const auto& m : index["manifests"])
    if (m.is_object() && m.value("digest", "") == artifact.manifest.digest) listed = true;
  if (!listed) index["manifests"].push_back(entry);
  push_index(canonical_json(index), media::kOciIndex, {artifact}, store, {repository.with_tag(out.fallback_tag)}, session);
  return out;
}

std::optional<std::string> find_referrer_artifact(const Reference& repository, const std::string& subject_digest,
                                                  const std::string& artifact_type, ContentStore& store,
                                                  Session& session, uint64_t max_bytes) {
  Transport& t = session.transport(repository.registry);
  const std::string where = repository.name() + "@" + subject_digest;
  std::optional<nlohmann::json> index = referrers_api_index(t, repository.repository, subject_digest, artifact_type);
  if (!index) {
    try {
      FetchedManifest tagged = fetch_manifest(t, repository.repository, "sha256-" + subject_digest.substr(7));
      index = nlohmann::json::parse(tagged.bytes, nullptr, false);
    } catch (const rp::Error&) {
      return std::nullopt;  // no fallback tag: nothing is attached
    }
  }
  if (!index->is_object() || !index->value("manifests", nlohmann::json()).is_array()) return std::nullopt;
  std::string artifact_digest;
  for (const auto& m : (*index)["manifests"])
    if (m.is_object() && m.value("artifactType", nlohmann::json()) == artifact_type &&
        m.value("digest", nlohmann::json()).is_string() && is_valid_digest(m["digest"].get<std::string>()))
      artifact_digest = m["digest"].get<std::string>();
  if (artifact_digest.empty()) return std::nullopt;

  FetchedManifest fetched = fetch_manifest(t, repository.repository, artifact_digest);  // checked against its digest
  auto manifest = nlohmann::json::parse(fetched.bytes, nullptr, false);
  auto bad = [&](const std::string& what) {
    return Error("the " + artifact_type + " referrer " + artifact_digest + " of " + where + " " + what,
                 "push the image again to attach a new one");
  };
  if (!manifest.is_object() || !manifest.value("subject", nlohmann::json()).is_object() ||
      manifest["subject"].value("digest", nlohmann::json()) != subject_digest)
    throw bad("does not name the image as its subject");
  const auto layers = manifest.value("layers", nlohmann::json());
  if (!layers.is_array() || layers.size() != 1 || !layers[0].is_object() || !layers[0].value("digest", nlohmann::json()).is_string() ||
      !layers[0].value("size", nlohmann::json()).is_number_unsigned())
    throw bad("does not have exactly one layer with a digest and a size");
  if (layers[0]["size"].get<uint64_t>() > max_bytes)
    throw bad("is " + std::to_string(layers[0]["size"].get<uint64_t>()) + " bytes, more than " + std::to_string(max_bytes));
  const std::string blob = layers[0]["digest"].get<std::string>();
  if (!blob.starts_with("sha256:") || !is_valid_digest(blob)) throw bad("has a layer digest that is not a sha256 digest");
  fetch_blob(t, repository.repository, blob, store);
  if (store.blob_size(blob) > max_bytes) throw bad("has a layer larger than " + std::to_string(max_bytes) + " bytes");
  return store.read_all(blob);
}

}  // namespace rp::registry
