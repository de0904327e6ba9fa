#include "registry/sealed_io.hpp"

#include <nlohmann/json.hpp>

#include "image/media_types.hpp"
#include "output/image_reader.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp::registry {

namespace {

Platform platform_of(const nlohmann::json& config) {
  Platform p;
  p.os = config.value("os", "linux");
  p.architecture = config.value("architecture", "amd64");
  p.variant = config.value("variant", "");
  return p;
}

Descriptor describe(const std::string& media_type, const std::string& bytes) {
  Descriptor d;
  d.media_type = media_type;
  d.digest = sha256_digest(bytes);
  d.size = static_cast<int64_t>(bytes.size());
  return d;
}

}  // namespace

SealedImage sealed_from_oci_layout(const std::filesystem::path& dir, const std::string& tag) {
  LocalImage local = read_oci_layout(dir, tag);
  SealedImage s;
  s.manifest_bytes = read_file(dir / "blobs" / "sha256" / digest_hex(local.manifest->digest));
  s.manifest = describe(local.manifest->media_type.empty() ? media::kOciManifest : local.manifest->media_type, s.manifest_bytes);
  if (s.manifest.digest != local.manifest->digest)
    throw rp::Error("the manifest blob " + local.manifest->digest + " in " + dir.string() + " is corrupt",
                    "write the layout again");
  Descriptor config = Descriptor::from_json(local.manifest_json.value("config", nlohmann::json()), local.source + " config");
  s.config_bytes = read_file(dir / "blobs" / "sha256" / digest_hex(config.digest));
  s.config = describe(config.media_type, s.config_bytes);
  if (s.config.digest != config.digest)
    throw rp::Error("the config blob " + config.digest + " in " + dir.string() + " is corrupt", "write the layout again");
  for (const auto& l : local.manifest_json.value("layers", nlohmann::json::array())) {
    ImageLayer layer;
    layer.blob = Descriptor::from_json(l, local.source + " layer");
    s.layers.push_back(layer);
  }
  s.platform = platform_of(local.config);
  s.manifest.platform = s.platform;
  return s;
}

SealedImage sealed_from_pull(const PullResult& pulled, const ContentStore& store) {
  SealedImage s;
  s.manifest_bytes = store.read_all(pulled.manifest_digest);
  s.manifest = describe(pulled.manifest_media_type, s.manifest_bytes);
  s.config_bytes = store.read_all(pulled.config_digest);
  auto manifest = nlohmann::json::parse(s.manifest_bytes);
  s.config = describe(manifest["config"].value("mediaType", std::string(media::kOciConfig)), s.config_bytes);
  s.layers = pulled.image.layers;
  s.platform = platform_of(pulled.image.config);
  s.manifest.platform = s.platform;
  return s;
}

}  // namespace rp::registry
