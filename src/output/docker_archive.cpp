#include "output/docker_archive.hpp"

#include <set>

#include "assemble/store_content.hpp"
#include "assemble/tar_writer.hpp"
#include "image/media_types.hpp"
#include "output/oci_layout.hpp"
#include "util/error.hpp"

namespace rp {

namespace {

Entry file_entry(const std::string& path, std::shared_ptr<const ContentSource> content) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = 0644;
  e.content = std::move(content);
  e.origin = "docker-archive";
  return e;
}

std::string blob_path(const std::string& digest) { return "blobs/sha256/" + digest_hex(digest); }

}  // namespace

void write_docker_archive(const SealedImage& image, const ContentStore& store, const fs::path& file,
                          const std::vector<std::string>& repo_tags, int64_t mtime) {
  std::vector<Entry> entries;
  std::set<std::string> seen;
  for (const auto& layer : image.layers) {
    if (!seen.insert(layer.blob.digest).second) continue;  // a layer used twice is stored once
    entries.push_back(file_entry(blob_path(layer.blob.digest),
                                 std::make_shared<StoreBlobContent>(store, layer.blob.digest, layer.blob.size)));
  }
  entries.push_back(file_entry(blob_path(image.config.digest), std::make_shared<InlineContent>(image.config_bytes)));
  entries.push_back(
      file_entry(blob_path(image.manifest.digest), std::make_shared<InlineContent>(image.manifest_bytes)));

  nlohmann::json legacy = nlohmann::json::object();
  legacy["Config"] = blob_path(image.config.digest);
  legacy["RepoTags"] = repo_tags;
  legacy["Layers"] = nlohmann::json::array();
  for (const auto& layer : image.layers) legacy["Layers"].push_back(blob_path(layer.blob.digest));
  entries.push_back(
      file_entry("manifest.json", std::make_shared<InlineContent>(canonical_json(nlohmann::json::array({legacy})))));

  // repositories: {"name": {"tag": "<config hex>"}} — read by very old docker load only.
  nlohmann::json repositories = nlohmann::json::object();
  std::vector<std::string> index_tags;
  for (const auto& rt : repo_tags) {
    auto colon = rt.rfind(':');
    repositories[rt.substr(0, colon)][rt.substr(colon + 1)] = digest_hex(image.config.digest);
    index_tags.push_back(rt);
  }
  if (!repo_tags.empty())
    entries.push_back(file_entry("repositories", std::make_shared<InlineContent>(canonical_json(repositories))));

  // The OCI part: index.json names each image by its full reference, as Docker does.
  nlohmann::json index = updated_index({}, image.manifest, {});
  if (!repo_tags.empty()) {
    index["manifests"][0]["annotations"]["io.containerd.image.name"] = repo_tags.front();
    index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"] =
        repo_tags.front().substr(repo_tags.front().rfind(':') + 1);
  }
  entries.push_back(file_entry("index.json", std::make_shared<InlineContent>(canonical_json(index))));
  entries.push_back(file_entry("oci-layout", std::make_shared<InlineContent>("{\"imageLayoutVersion\":\"1.0.0\"}")));
  finalize_entries(entries);

  AtomicFile out(file, 0644);
  TarWriter tar(out, mtime);
  for (const auto& e : entries) tar.add(e);
  tar.finish();
  out.commit();
}

}  // namespace rp
