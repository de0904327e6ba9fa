#include "output/oci_layout.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "image/media_types.hpp"
#include "util/error.hpp"

namespace rp {

namespace {

constexpr const char* kRefName = "org.opencontainers.image.ref.name";
constexpr const char* kLayoutFile = "{\"imageLayoutVersion\":\"1.0.0\"}";

void put_blob_bytes(const fs::path& dir, const std::string& digest, const std::string& bytes) {
  fs::path p = dir / "blobs" / "sha256" / digest_hex(digest);
  if (!fs::exists(p)) write_file_atomic(p, bytes);
}

void put_blobs(const SealedImage& image, const ContentStore& store, const fs::path& dir) {
  for (const auto& layer : image.layers) {
    fs::path p = dir / "blobs" / "sha256" / digest_hex(layer.blob.digest);
    std::error_code ec;
    if (fs::exists(p, ec) && fs::file_size(p, ec) == static_cast<uintmax_t>(layer.blob.size)) continue;
    store.export_to(layer.blob.digest, p);
  }
  put_blob_bytes(dir, image.config.digest, image.config_bytes);
  put_blob_bytes(dir, image.manifest.digest, image.manifest_bytes);
}

// Serializes concurrent writers of one layout: the index update is read-modify-write.
class LayoutLock {
 public:
  explicit LayoutLock(const fs::path& dir) {
    fd_ = ::open((dir / ".rockpack.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~LayoutLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  LayoutLock(const LayoutLock&) = delete;
  LayoutLock& operator=(const LayoutLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

nlohmann::json updated_index(const nlohmann::json& existing, const Descriptor& manifest,
                             const std::vector<std::string>& tags) {
  nlohmann::json index = existing.is_object() ? existing : nlohmann::json::object();
  index["schemaVersion"] = 2;
  index["mediaType"] = media::kOciIndex;
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& m : index.value("manifests", nlohmann::json::array())) {
    std::string ref;
    if (m.contains("annotations") && m["annotations"].contains(kRefName)) ref = m["annotations"][kRefName];
    bool retagged = std::find(tags.begin(), tags.end(), ref) != tags.end();
    bool same_untagged = ref.empty() && tags.empty() && m.value("digest", "") == manifest.digest;
    if (!retagged && !same_untagged) kept.push_back(m);
  }
  if (tags.empty()) {
    kept.push_back(manifest.to_json());
  } else {
    for (const auto& tag : tags) {
      Descriptor d = manifest;
      d.annotations[kRefName] = tag;
      kept.push_back(d.to_json());
    }
  }
  index["manifests"] = kept;
  return index;
}

void write_oci_layout(const SealedImage& image, const ContentStore& store, const fs::path& dir,
                      const std::vector<std::string>& tags) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::path tmp = temp_sibling(dir);
    try {
      fs::create_directories(tmp / "blobs" / "sha256");
      write_file_atomic(tmp / "oci-layout", kLayoutFile);
      put_blobs(image, store, tmp);
      write_file_atomic(tmp / "index.json", canonical_json(updated_index({}, image.manifest, tags)));
      if (dir.has_parent_path()) fs::create_directories(dir.parent_path());
      fs::rename(tmp, dir);
    } catch (...) {
      fs::remove_all(tmp, ec);
      throw;
    }
    return;
  }
  if (!fs::is_directory(dir) || !fs::exists(dir / "oci-layout"))
    throw Error(dir.string() + " exists and is not an OCI image layout",
                "choose another directory, or remove it first");
  LayoutLock lock(dir);
  put_blobs(image, store, dir);
  nlohmann::json existing;
  if (fs::exists(dir / "index.json")) {
    try {
      existing = nlohmann::json::parse(read_file(dir / "index.json"));
    } catch (const nlohmann::json::exception& e) {
      throw Error(dir.string() + "/index.json is not valid JSON: " + e.what(),
                  "repair or remove the layout; rockpack does not overwrite an index it cannot read");
    }
  }
  write_file_atomic(dir / "index.json", canonical_json(updated_index(existing, image.manifest, tags)));
}

}  // namespace rp
