#include "output/docker_archive.hpp"

#include "image/media_types.hpp"
#include "output/layout_tar.hpp"
#include "output/oci_layout.hpp"
#include "util/error.hpp"

namespace rp {

void write_docker_archive(const SealedImage& image, const ContentStore& store, const fs::path& file,
                          const std::vector<ArchiveTag>& tags, int64_t mtime) {
  std::vector<Entry> entries = layout_blob_entries(image, store);

  nlohmann::json legacy = nlohmann::json::object();
  legacy["Config"] = blob_path(image.config.digest);
  legacy["RepoTags"] = nlohmann::json::array();
  for (const auto& t : tags) legacy["RepoTags"].push_back(t.repo_tag);
  legacy["Layers"] = nlohmann::json::array();
  for (const auto& layer : image.layers) legacy["Layers"].push_back(blob_path(layer.blob.digest));
  entries.push_back(
      file_entry("manifest.json", std::make_shared<InlineContent>(canonical_json(nlohmann::json::array({legacy})))));

  // repositories: {"name": {"tag": "<config hex>"}} — read by very old docker load only.
  nlohmann::json repositories = nlohmann::json::object();
  for (const auto& t : tags) {
    auto colon = t.repo_tag.rfind(':');
    repositories[t.repo_tag.substr(0, colon)][t.repo_tag.substr(colon + 1)] = digest_hex(image.config.digest);
  }
  if (!tags.empty())
    entries.push_back(file_entry("repositories", std::make_shared<InlineContent>(canonical_json(repositories))));

  // The OCI part: one index.json entry per name, as Docker does.
  nlohmann::json index = updated_index({}, image.manifest, {});
  if (!tags.empty()) {
    nlohmann::json manifests = nlohmann::json::array();
    for (const auto& t : tags) {
      nlohmann::json m = image.manifest.to_json();
      m["annotations"]["io.containerd.image.name"] = t.full_name;
      m["annotations"]["org.opencontainers.image.ref.name"] = t.full_name.substr(t.full_name.rfind(':') + 1);
      manifests.push_back(m);
    }
    index["manifests"] = manifests;
  }
  entries.push_back(file_entry("index.json", std::make_shared<InlineContent>(canonical_json(index))));
  entries.push_back(file_entry("oci-layout", std::make_shared<InlineContent>("{\"imageLayoutVersion\":\"1.0.0\"}")));
  write_layout_tar(entries, file, mtime);
}

}  // namespace rp
