#include "output/sealed_layout.hpp"

#include <nlohmann/json.hpp>

#include "image/media_types.hpp"
#include "output/image_reader.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp {

namespace {

std::string blob_bytes(const std::filesystem::path& dir, const std::string& digest, const std::string& what) {
  std::string bytes = read_file(dir / "blobs" / "sha256" / digest_hex(digest));
  if (sha256_digest(bytes) != digest)
    throw rp::Error("the " + what + " blob " + digest + " in " + dir.string() + " is corrupt", "write the layout again");
  return bytes;
}

// One image of a layout, given its manifest descriptor.
SealedImage sealed_from_manifest(const std::filesystem::path& dir, const Descriptor& desc) {
  SealedImage s;
  s.manifest_bytes = blob_bytes(dir, desc.digest, "manifest");
  s.manifest = Descriptor::of_bytes(desc.media_type.empty() ? media::kOciManifest : desc.media_type, s.manifest_bytes);
  auto manifest = nlohmann::json::parse(s.manifest_bytes, nullptr, false);
  if (!manifest.is_object()) throw rp::Error("the manifest " + desc.digest + " in " + dir.string() + " is not JSON");
  std::string where = "oci:" + dir.string() + "@" + desc.digest;
  Descriptor config = Descriptor::from_json(manifest.value("config", nlohmann::json()), where + " config");
  s.config_bytes = blob_bytes(dir, config.digest, "config");
  s.config = Descriptor::of_bytes(config.media_type, s.config_bytes);
  for (const auto& l : manifest.value("layers", nlohmann::json::array())) {
    ImageLayer layer;
    layer.blob = Descriptor::from_json(l, where + " layer");
    s.layers.push_back(layer);
  }
  auto config_json = nlohmann::json::parse(s.config_bytes, nullptr, false);
  s.platform = platform_of_config(config_json.is_object() ? config_json : nlohmann::json::object());
  s.manifest.platform = desc.platform ? *desc.platform : s.platform;
  return s;
}

}  // namespace

std::optional<LayoutIndex> index_from_oci_layout(const std::filesystem::path& dir, const std::string& tag) {
  auto index = nlohmann::json::parse(read_file(dir / "index.json"), nullptr, false);
  if (!index.is_object() || !index.contains("manifests") || !index["manifests"].is_array()) return std::nullopt;
  std::vector<Descriptor> entries;
  for (const auto& m : index["manifests"]) {
    Descriptor d = Descriptor::from_json(m, dir.string() + "/index.json");
    auto ref = d.annotations.find("org.opencontainers.image.ref.name");
    if (tag.empty() || (ref != d.annotations.end() && ref->second == tag)) entries.push_back(d);
  }
  if (entries.size() != 1) return std::nullopt;  // read_oci_layout reports these cases
  const Descriptor& entry = entries.front();
  if (entry.media_type != media::kOciIndex && entry.media_type != media::kDockerManifestList) return std::nullopt;
  LayoutIndex out;
  out.bytes = blob_bytes(dir, entry.digest, "index");
  out.media_type = entry.media_type;
  auto j = nlohmann::json::parse(out.bytes, nullptr, false);
  if (!j.is_object() || !j.contains("manifests") || !j["manifests"].is_array())
    throw rp::Error("the index " + entry.digest + " in " + dir.string() + " has no manifest list");
  for (const auto& m : j["manifests"]) {
    Descriptor child = Descriptor::from_json(m, "index " + entry.digest);
    if (child.media_type == media::kOciIndex || child.media_type == media::kDockerManifestList)
      throw rp::Error("the index " + entry.digest + " in " + dir.string() + " nests another index, which rockpack does not push");
    out.children.push_back(sealed_from_manifest(dir, child));
  }
  return out;
}

SealedImage sealed_from_oci_layout(const std::filesystem::path& dir, const std::string& tag) {
  LocalImage local = read_oci_layout(dir, tag);  // picks the entry and reports ambiguous or missing tags
  Descriptor desc = *local.manifest;
  desc.platform.reset();
  return sealed_from_manifest(dir, desc);
}

}  // namespace rp
