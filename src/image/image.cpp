#include "image/image.hpp"

#include "image/media_types.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp {

std::string canonical_json(const nlohmann::json& j) {
  // nlohmann::json keeps object keys in a std::map: dump() is sorted and stable.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
}

void Image::add_layer(const ImageLayer& layer, const nlohmann::json& history_entry) {
  layers.push_back(layer);
  config["rootfs"]["type"] = "layers";
  config["rootfs"]["diff_ids"].push_back(layer.diff_id);
  config["history"].push_back(history_entry);
}

SealedImage seal(const Image& image) {
  SealedImage s;
  s.layers = image.layers;
  nlohmann::json config = image.config;
  config["rootfs"]["type"] = "layers";
  config["rootfs"]["diff_ids"] = nlohmann::json::array();
  for (const auto& l : image.layers) config["rootfs"]["diff_ids"].push_back(l.diff_id);
  s.platform.os = config.value("os", "linux");
  s.platform.architecture = config.value("architecture", "amd64");
  s.platform.variant = config.value("variant", "");
  s.config_bytes = canonical_json(config);
  s.config.media_type = media::kOciConfig;
  s.config.digest = sha256_digest(s.config_bytes);
  s.config.size = static_cast<int64_t>(s.config_bytes.size());

  nlohmann::json manifest = {{"schemaVersion", 2}, {"mediaType", media::kOciManifest}};
  manifest["config"] = s.config.to_json();
  manifest["layers"] = nlohmann::json::array();
  for (const auto& l : image.layers) {
    Descriptor d = l.blob;
    d.platform.reset();
    manifest["layers"].push_back(d.to_json());
  }
  if (!image.annotations.empty()) manifest["annotations"] = image.annotations;
  s.manifest_bytes = canonical_json(manifest);
  s.manifest.media_type = media::kOciManifest;
  s.manifest.digest = sha256_digest(s.manifest_bytes);
  s.manifest.size = static_cast<int64_t>(s.manifest_bytes.size());
  s.manifest.platform = s.platform;
  return s;
}

namespace {
// Docker schema 2 layer types map onto their OCI equivalents so a base from Docker Hub keeps working
// in an OCI manifest.
std::string oci_layer_type(const std::string& t) {
  if (t == media::kDockerLayerGzip) return media::kOciLayerGzip;
  return t;
}
}  // namespace

Image image_from_manifest(const nlohmann::json& manifest, const nlohmann::json& config, const std::string& where) {
  if (!manifest.is_object() || !manifest.contains("layers") || !manifest["layers"].is_array())
    throw Error(where + ": the manifest has no layer list");
  if (!config.is_object()) throw Error(where + ": the image config is not a JSON object");
  if (config.contains("rootfs") && !config["rootfs"].is_object())
    throw Error(where + ": the image config's rootfs is not a JSON object");
  for (const char* key : {"config", "history"})
    if (config.contains(key) && !config[key].is_null() && !config[key].is_object() && !config[key].is_array())
      throw Error(where + ": the image config's \"" + key + "\" has the wrong type");
  Image img;
  img.config = config;
  const nlohmann::json diff_ids = config.contains("rootfs") ? config["rootfs"].value("diff_ids", nlohmann::json::array())
                                                            : nlohmann::json::array();
  if (!diff_ids.is_array()) throw Error(where + ": the image config's rootfs.diff_ids is not a list");
  const auto& layers = manifest["layers"];
  if (diff_ids.size() != layers.size())
    throw Error(where + ": the manifest lists " + std::to_string(layers.size()) + " layers but the config has " +
                std::to_string(diff_ids.size()) + " diff_ids");
  for (size_t i = 0; i < layers.size(); ++i) {
    ImageLayer l;
    l.blob = Descriptor::from_json(layers[i], where + " layer " + std::to_string(i));
    l.blob.media_type = oci_layer_type(l.blob.media_type);
    if (!diff_ids[i].is_string() || !is_valid_digest(diff_ids[i].get<std::string>()))
      throw Error(where + ": diff_id " + std::to_string(i) + " is not a sha256 digest");
    l.diff_id = diff_ids[i].get<std::string>();
    img.layers.push_back(l);
  }
  if (auto a = manifest.find("annotations"); a != manifest.end() && a->is_object())
    for (auto& [k, v] : a->items())
      if (v.is_string()) img.annotations[k] = v.get<std::string>();
  return img;
}

}  // namespace rp
