#include "registry/layer_cache_document.hpp"

#include <nlohmann/json.hpp>

#include <set>

#include "image/media_types.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::registry {

namespace {

constexpr const char* kWhat = "the registry layer cache";

bool is_layer_media_type(const std::string& t) {
  return t == media::kOciLayerGzip || t == media::kOciLayerZstd || t == media::kOciLayerTar ||
         t == media::kDockerLayerGzip;
}

const nlohmann::json& field(const nlohmann::json& j, const char* name, const std::string& where) {
  auto it = j.find(name);
  if (it == j.end()) throw Error(std::string(kWhat) + ": " + where + " has no \"" + name + "\"");
  return *it;
}

std::string digest_field(const nlohmann::json& j, const char* name, const std::string& where) {
  const auto& v = field(j, name, where);
  if (!v.is_string() || !is_valid_digest(v.get<std::string>()))
    throw Error(std::string(kWhat) + ": " + where + ": \"" + name + "\" is not a sha256 digest");
  return v.get<std::string>();
}

uint64_t size_field(const nlohmann::json& j, const char* name, const std::string& where) {
  const auto& v = field(j, name, where);
  // Parsed non-negative integers are unsigned; a size must also fit the descriptor's int64.
  if (!v.is_number_unsigned() || v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    throw Error(std::string(kWhat) + ": " + where + ": \"" + name + "\" is not a size");
  return v.get<uint64_t>();
}

nlohmann::json parse_object(std::string_view bytes, const char* what) {
  auto j = nlohmann::json::parse(bytes, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error(std::string(kWhat) + ": its " + what + " is not a JSON object");
  return j;
}

}  // namespace

std::string layer_cache_config(const std::vector<LayerCacheEntry>& entries) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& e : entries)
    layers.push_back({{"key", e.key},
                      {"mediaType", e.layer.blob.media_type},
                      {"digest", e.layer.blob.digest},
                      {"size", e.layer.blob.size},
                      {"diff_id", e.layer.diff_id},
                      {"uncompressed_size", e.layer.uncompressed_size}});
  return canonical_json({{"rockpack_layer_cache", kLayerCacheVersion}, {"layers", layers}});
}

std::vector<LayerCacheEntry> parse_layer_cache_config(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(kMaxLayerCacheConfig)) throw Error(std::string(kWhat) + ": its config is too big");
  nlohmann::json j = parse_object(bytes, "config");
  const auto& version = field(j, "rockpack_layer_cache", "the config");
  if (!version.is_number_integer() || version.get<int64_t>() != kLayerCacheVersion)
    throw Error(std::string(kWhat) + ": its format version is not " + std::to_string(kLayerCacheVersion),
                "it was written by another rockpack version; the next --cache-to replaces it");
  const auto& layers = field(j, "layers", "the config");
  if (!layers.is_array()) throw Error(std::string(kWhat) + ": \"layers\" is not a list");
  if (layers.size() > kMaxLayerCacheEntries) throw Error(std::string(kWhat) + ": it lists too many layers");
  std::vector<LayerCacheEntry> out;
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    std::string where = "layers[" + std::to_string(i) + "]";
    if (!l.is_object()) throw Error(std::string(kWhat) + ": " + where + " is not a JSON object");
    LayerCacheEntry e;
    e.key = digest_field(l, "key", where);
    const auto& type = field(l, "mediaType", where);
    if (!type.is_string() || !is_layer_media_type(type.get<std::string>()))
      throw Error(std::string(kWhat) + ": " + where + ": \"mediaType\" is not a layer media type");
    e.layer.blob.media_type = type.get<std::string>();
    e.layer.blob.digest = digest_field(l, "digest", where);
    e.layer.blob.size = static_cast<int64_t>(size_field(l, "size", where));
    e.layer.diff_id = digest_field(l, "diff_id", where);
    e.layer.uncompressed_size = size_field(l, "uncompressed_size", where);
    out.push_back(std::move(e));
  }
  return out;
}

std::string layer_cache_manifest(const Descriptor& config, const std::vector<LayerCacheEntry>& entries) {
  nlohmann::json layers = nlohmann::json::array();
  std::set<std::string> seen;
  for (const auto& e : entries)
    if (seen.insert(e.layer.blob.digest).second) layers.push_back(e.layer.blob.to_bare_json());
  return canonical_json({{"schemaVersion", 2},
                         {"mediaType", media::kOciManifest},
                         {"artifactType", kLayerCacheArtifactType},
                         {"config", config.to_bare_json()},
                         {"layers", layers}});
}

LayerCacheManifest parse_layer_cache_manifest(std::string_view bytes) {
  nlohmann::json j = parse_object(bytes, "manifest");
  LayerCacheManifest m;
  m.config = Descriptor::from_json(field(j, "config", "the manifest"), std::string(kWhat) + " manifest's config");
  if (m.config.media_type != kLayerCacheConfigType)
    throw Error(std::string(kWhat) + ": the manifest's config is a " +
                    (m.config.media_type.empty() ? std::string("blob without media type") : m.config.media_type.substr(0, 100)) +
                    ", not a rockpack layer cache",
                "--cache-from names an image, not a cache? Give the reference --cache-to wrote");
  if (m.config.size > kMaxLayerCacheConfig) throw Error(std::string(kWhat) + ": its config is too big");
  if (auto it = j.find("layers"); it != j.end()) {
    if (!it->is_array()) throw Error(std::string(kWhat) + ": the manifest's \"layers\" is not a list");
    if (it->size() > kMaxLayerCacheEntries) throw Error(std::string(kWhat) + ": it lists too many layers");
    for (size_t i = 0; i < it->size(); ++i)
      m.layers.push_back(Descriptor::from_json((*it)[i], std::string(kWhat) + " manifest's layers[" + std::to_string(i) + "]"));
  }
  return m;
}

}  // namespace rp::registry
