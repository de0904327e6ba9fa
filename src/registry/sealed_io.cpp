#include "registry/sealed_io.hpp"

#include <nlohmann/json.hpp>

#include "image/media_types.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::registry {

SealedImage sealed_from_pull(const PullResult& pulled, const ContentStore& store) {
  SealedImage s;
  s.manifest_bytes = store.read_all(pulled.manifest_digest);
  s.config_bytes = store.read_all(pulled.config_digest);
  auto manifest = nlohmann::json::parse(s.manifest_bytes);
  if (pulled.manifest_media_type == media::kDockerManifest) {
    // OCI layouts hold OCI manifests (skopeo finds nothing else in them): the Docker schema 2
    // manifest is rewritten with the equivalent OCI media types, as skopeo copy does. The config
    // and the layers stay byte for byte; only the manifest digest changes.
    manifest["mediaType"] = media::kOciManifest;
    manifest["config"]["mediaType"] = media::kOciConfig;
    for (auto& l : manifest["layers"]) {
      std::string t = l.value("mediaType", "");
      if (t == media::kDockerLayerGzip) l["mediaType"] = media::kOciLayerGzip;
      else if (t != media::kOciLayerGzip && t != media::kOciLayerTar && t != media::kOciLayerZstd)
        throw rp::Error(pulled.pinned() + " has a layer of type " + t + ", which has no OCI equivalent");
    }
    s.manifest_bytes = canonical_json(manifest);
  }
  s.manifest = Descriptor::of_bytes(manifest.value("mediaType", std::string(media::kOciManifest)), s.manifest_bytes);
  s.config = Descriptor::of_bytes(manifest["config"].value("mediaType", std::string(media::kOciConfig)), s.config_bytes);
  s.layers = pulled.image.layers;
  s.platform = platform_of_config(pulled.image.config);
  s.manifest.platform = s.platform;
  return s;
}

}  // namespace rp::registry
