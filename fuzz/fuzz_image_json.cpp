// Fuzzes what rockpack reads from image files and registries: manifests, configs and descriptors.
#include <cstdint>
#include <string>

#include "image/image.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto split = text.find('\n');
  try {
    auto manifest = nlohmann::json::parse(text.substr(0, split));
    auto config = split == std::string::npos ? nlohmann::json::object() : nlohmann::json::parse(text.substr(split + 1));
    rp::Image img = rp::image_from_manifest(manifest, config, "fuzz");
    (void)rp::seal(img);
    if (manifest.is_object() && manifest.contains("config")) (void)rp::Descriptor::from_json(manifest["config"], "fuzz");
  } catch (const nlohmann::json::exception&) {
  } catch (const rp::Error&) {
  }
  return 0;
}
