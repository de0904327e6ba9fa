#include "registry/pull.hpp"

#include <spdlog/spdlog.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "image/media_types.hpp"
#include "registry/blob_locations.hpp"
#include "registry/manifest_fetch.hpp"
#include "util/parallel.hpp"
#include "util/error.hpp"

namespace rp::registry {

namespace {

bool is_index(const std::string& media_type) {
  return media_type == media::kOciIndex || media_type == media::kDockerManifestList;
}

}  // namespace

// First entry that matches wins, as in every other client.
Descriptor select_platform(const nlohmann::json& index, const Platform& platform, const std::string& where) {
  if (!index.contains("manifests") || !index["manifests"].is_array())
    throw rp::Error(where + ": the image index has no manifest list");
  std::string available;
  for (size_t i = 0; i < index["manifests"].size(); ++i) {
    Descriptor d = Descriptor::from_json(index["manifests"][i], where + " entry " + std::to_string(i));
    if (!d.platform) continue;
    if (d.platform->architecture == "unknown") continue;  // attestation manifests (buildx)
    if (platform.matches(*d.platform)) return d;
    available += (available.empty() ? "" : ", ") + d.platform->str();
  }
  throw rp::Error(where + " has no image for " + platform.str() + (available.empty() ? "" : " (it has: " + available + ")"),
                  "choose one of its platforms with --platform, or another image");
}

PullResult pull_image(const Reference& reference, const Platform& platform, ContentStore& store, Session& session,
                      bool fetch_layers) {
  Transport& t = session.transport(reference.registry);
  const std::string& repo = reference.repository;
  PullResult result;
  result.reference = reference;

  FetchedManifest m = fetch_manifest(t, repo, reference.identifier());
  if (is_index(m.media_type)) {
    result.index_digest = m.digest;
    store.put(m.bytes);
    Descriptor chosen = select_platform(nlohmann::json::parse(m.bytes), platform, reference.str());
    m = fetch_manifest(t, repo, chosen.digest);
  }
  if (m.media_type != media::kOciManifest && m.media_type != media::kDockerManifest)
    throw rp::Error(reference.str() + " is not an image (its manifest type is " + m.media_type + ")",
                    "pull an image reference; artifacts cannot be used as a base");
  result.manifest_digest = m.digest;
  result.manifest_media_type = m.media_type;
  store.put(m.bytes);

  auto manifest = nlohmann::json::parse(m.bytes);
  std::string where = reference.name() + "@" + m.digest;
  Descriptor config = Descriptor::from_json(manifest.value("config", nlohmann::json()), where + " config");
  result.config_digest = config.digest;
  fetch_blob(t, repo, config.digest, store);
  remember_repository(store, reference.registry, config.digest, repo);
  auto config_json = nlohmann::json::parse(store.read_all(config.digest), nullptr, false);
  if (config_json.is_discarded()) throw rp::Error(where + ": the image config is not JSON");
  if (result.index_digest.empty()) {
    // A single-platform image: no index chose it, so its config says whether it is the one asked for.
    Platform has{config_json.value("os", ""), config_json.value("architecture", ""), config_json.value("variant", "")};
    if (!platform.matches(has))
      throw rp::Error(reference.str() + " has no image for " + platform.str() + " (it has: " + has.str() + ")",
                      "it is a single-platform image; pull it with --platform " + has.str() +
                          ", or choose an image that has " + platform.str());
  }
  result.image = image_from_manifest(manifest, config_json, where);
  if (!fetch_layers) return result;

  std::vector<std::function<void()>> jobs;
  for (const auto& layer : result.image.layers) {
    if (layer.blob.media_type == media::kDockerForeignLayerGzip)
      throw rp::Error(where + " has foreign (non-distributable) layers, which rockpack cannot fetch");
    std::string digest = layer.blob.digest;
    jobs.push_back([&t, &store, repo, digest, &reference] {
      fetch_blob(t, repo, digest, store);
      remember_repository(store, reference.registry, digest, repo);
    });
  }
  rp::run_parallel(jobs, session.options().parallel);
  spdlog::debug("pulled {} ({} layer{})", result.pinned(), result.image.layers.size(),
                result.image.layers.size() == 1 ? "" : "s");
  return result;
}

PullResult pull_image(const Reference& reference, const Platform& platform, ContentStore& store,
                      const RegistryOptions& options) {
  Session session(options);
  return pull_image(reference, platform, store, session);
}

}  // namespace rp::registry
