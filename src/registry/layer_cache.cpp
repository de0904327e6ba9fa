#include "registry/layer_cache.hpp"

#include <spdlog/spdlog.h>

#include <set>

#include "image/layer_archive.hpp"
#include "image/media_types.hpp"
#include "image/base_layer_check.hpp"
#include "registry/auth.hpp"
#include "registry/blob_locations.hpp"
#include "registry/manifest_fetch.hpp"
#include "registry/push.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::registry {

RegistryLayerCache::RegistryLayerCache(LayerCacheOptions options, ContentStore& store, Session& session)
    : options_(std::move(options)), store_(store), session_(session) {}

void RegistryLayerCache::load() {
  if (!options_.from) return;
  const Reference& from = *options_.from;
  try {
    Transport& t = session_.transport(from.registry);
    FetchedManifest fetched = fetch_manifest(t, from.repository, from.identifier());
    LayerCacheManifest manifest = parse_layer_cache_manifest(fetched.bytes);
    // The config is small and checked by digest on arrival (fetch_blob), then parsed.
    fetch_blob(t, from.repository, manifest.config.digest, store_);
    std::vector<LayerCacheEntry> entries = parse_layer_cache_config(store_.read_all(manifest.config.digest));
    std::set<std::string> referenced;
    for (const auto& l : manifest.layers) referenced.insert(l.digest);
    for (auto& e : entries) {
      // A blob the manifest does not reference is not kept by the registry: not a usable entry.
      if (!referenced.count(e.layer.blob.digest)) {
        spdlog::warn("registry cache {}: layer {} is listed but not referenced by the cache manifest; skipped",
                     from.str(), e.layer.blob.digest);
        continue;
      }
      listed_.emplace(e.key, std::move(e));
    }
    counts_.listed = listed_.size();
    spdlog::info("registry cache {}: {} layer{} listed", from.str(), listed_.size(), listed_.size() == 1 ? "" : "s");
  } catch (const std::exception& e) {
    listed_.clear();
    spdlog::warn("registry cache {} cannot be used, building without it: {}", from.str(), e.what());
  }
}

bool RegistryLayerCache::make_available(const LayerCacheEntry& entry) {
  const Reference& from = *options_.from;
  const Descriptor& blob = entry.layer.blob;
  std::string what = "layer " + blob.digest + " of the registry cache " + from.str();
  try {
    Transport& t = session_.transport(from.registry);
    bool had = store_.contains(blob.digest);
    if (!had && !options_.download) {
      // Left in the registry: it must be there, with the size the cache says.
      net::HttpRequest req;
      req.method = "HEAD";
      req.url = "/v2/" + from.repository + "/blobs/" + blob.digest;
      net::HttpResponse r = t.send(req, {repository_scope(from.repository, "pull")});
      auto length = r.header("content-length");
      if (r.status != 200) throw Error("the registry answered " + std::to_string(r.status) + " for it");
      if (length && *length != std::to_string(blob.size))
        throw Error("the registry holds it with " + *length + " bytes, the cache says " + std::to_string(blob.size));
      remember_repository(store_, from.registry, blob.digest, from.repository);
      return true;
    }
    if (!had) fetch_blob(t, from.repository, blob.digest, store_);
    if (store_.blob_size(blob.digest) != static_cast<uint64_t>(blob.size))
      throw Error("it has " + std::to_string(store_.blob_size(blob.digest)) + " bytes, the cache says " +
                  std::to_string(blob.size));
    // The media type is the cache's word; the bytes say what they are. A zstd blob listed as gzip
    // would make a manifest that umoci and containerd refuse.
    std::string sniffed = LayerArchive::sniff_compression(store_.blob_path(blob.digest));
    std::string said = LayerArchive::compression_of(blob.media_type);
    if (said.empty()) throw Error("its media type " + blob.media_type + " is no layer type");
    if (sniffed != said) throw Error("its bytes are " + sniffed + ", its media type says " + said);
    // The diff_id goes into the image config: decompress and compare, as for a base layer.
    verify_base_layer(store_, blob.digest, blob.size, entry.layer.diff_id, what);
    remember_repository(store_, from.registry, blob.digest, from.repository);
    if (!had) {
      std::lock_guard lock(mu_);
      ++counts_.downloaded;
      counts_.bytes_downloaded += static_cast<uint64_t>(blob.size);
    }
    return true;
  } catch (const std::exception& e) {
    spdlog::warn("{} cannot be used, building the layer instead: {}", what, e.what());
    return false;
  }
}

std::optional<ImageLayer> RegistryLayerCache::find(const std::string& content_key) {
  auto it = listed_.find(content_key);
  if (it == listed_.end()) return std::nullopt;
  bool ok = make_available(it->second);
  std::lock_guard lock(mu_);
  if (!ok) {
    ++counts_.skipped;
    listed_.erase(it);
    return std::nullopt;
  }
  ++counts_.hits;
  return it->second.layer;
}

void RegistryLayerCache::rejected(const std::string& content_key) {
  (void)content_key;  // a key is asked once per build: the entry needs no removal
  std::lock_guard lock(mu_);
  if (counts_.hits > 0) {
    --counts_.hits;
    ++counts_.skipped;
  }
}

void RegistryLayerCache::add(const std::string& content_key, const ImageLayer& layer) {
  std::lock_guard lock(mu_);
  for (const auto& e : added_)
    if (e.key == content_key) return;
  added_.push_back(LayerCacheEntry{content_key, layer});
}

void RegistryLayerCache::fetch_into_store(const std::string& digest) {
  if (store_.contains(digest)) return;
  if (!options_.from)
    throw Error("layer " + digest + " is not in the store", "build again without --cache-from");
  fetch_blob(session_.transport(options_.from->registry), options_.from->repository, digest, store_);
}

std::string RegistryLayerCache::export_cache() {
  if (!options_.to) return {};
  std::vector<LayerCacheEntry> entries;
  {
    std::lock_guard lock(mu_);
    entries = added_;
  }
  SealedImage artifact;
  artifact.config_bytes = layer_cache_config(entries);
  artifact.config.media_type = kLayerCacheConfigType;
  artifact.config.digest = sha256_digest(artifact.config_bytes);
  artifact.config.size = static_cast<int64_t>(artifact.config_bytes.size());
  for (const auto& e : entries) artifact.layers.push_back(e.layer);
  artifact.manifest_bytes = layer_cache_manifest(artifact.config, entries);
  artifact.manifest.media_type = media::kOciManifest;
  artifact.manifest.digest = sha256_digest(artifact.manifest_bytes);
  artifact.manifest.size = static_cast<int64_t>(artifact.manifest_bytes.size());
  Reference to = options_.to->has_tag() || options_.to->has_digest() ? *options_.to : options_.to->with_tag("buildcache");
  try {
    PushResult r = push_image(artifact, store_, {to}, session_, {}, [this](const std::string& d) { fetch_into_store(d); });
    spdlog::info("registry cache {}: {} layer{} ({} blob{} uploaded, {} mounted, {} already there)", to.str(),
                 entries.size(), entries.size() == 1 ? "" : "s", r.stats.blobs_uploaded,
                 r.stats.blobs_uploaded == 1 ? "" : "s", r.stats.blobs_mounted, r.stats.blobs_existing);
  } catch (const Error& e) {
    throw Error("pushing the registry layer cache to " + to.str() + ": " + e.what(),
                std::string(e.hint().empty() ? "" : e.hint() + "; ") + "the image itself was written before this");
  }
  return artifact.manifest.digest;
}

LayerCacheCounts RegistryLayerCache::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

}  // namespace rp::registry
