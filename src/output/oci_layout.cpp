#include "output/oci_layout.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <optional>
#include <set>

#include "image/media_types.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/temp_files.hpp"

namespace rp {

namespace {

constexpr const char* kRefName = "org.opencontainers.image.ref.name";
constexpr const char* kLayoutFile = "{\"imageLayoutVersion\":\"1.0.0\"}";

void put_blob_bytes(const fs::path& dir, const std::string& digest, const std::string& bytes) {
  fs::path p = dir / "blobs" / "sha256" / digest_hex(digest);
  std::error_code ec;
  // An existing blob is compared, not trusted: a damaged one is replaced (it is small).
  if (fs::is_regular_file(p, ec) && fs::file_size(p, ec) == bytes.size() && read_file(p) == bytes) return;
  write_file_atomic(p, bytes);
}

bool same_inode(const fs::path& a, const fs::path& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// Whether the layout file `p` holds the blob `digest` (hashed: its size alone proves nothing).
bool holds_blob(const fs::path& p, const std::string& digest, int64_t size) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) != static_cast<uintmax_t>(size)) return false;
  HashingSink hash(nullptr);
  stream_file(p, hash);
  return hash.finish_digest() == digest;
}

void put_blobs(const SealedImage& image, const ContentStore& store, const fs::path& dir) {
  for (const auto& layer : image.layers) {
    fs::path p = dir / "blobs" / "sha256" / digest_hex(layer.blob.digest);
    // A hardlink of the store's blob is checked by export_to with the store's stat-identity rule
    // (cheap); a separate copy is hashed, and replaced when it does not match.
    if (!same_inode(p, store.blob_path(layer.blob.digest)) && holds_blob(p, layer.blob.digest, layer.blob.size)) continue;
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

// Every blob the index reaches: manifests, nested indexes, configs, layers (and an artifact's
// subject/blobs). nullopt when a reachable manifest is missing or unreadable: then nothing may be
// called garbage.
std::optional<std::set<std::string>> referenced_blobs(const fs::path& dir, const nlohmann::json& index) {
  std::set<std::string> seen;
  std::vector<nlohmann::json> pending{index};
  while (!pending.empty()) {
    nlohmann::json doc = std::move(pending.back());
    pending.pop_back();
    auto visit = [&](const nlohmann::json& d, bool is_manifest) -> bool {
      if (!d.is_object() || !d.contains("digest") || !d["digest"].is_string()) return false;
      std::string digest = d["digest"];
      if (!is_valid_digest(digest) || digest.rfind("sha256:", 0) != 0) return false;
      if (!seen.insert(digest_hex(digest)).second || !is_manifest) return true;
      fs::path p = dir / "blobs" / "sha256" / digest_hex(digest);
      std::error_code ec;
      if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) > (8u << 20)) return false;
      auto j = nlohmann::json::parse(read_file(p), nullptr, false);
      if (!j.is_object()) return false;
      pending.push_back(std::move(j));
      return true;
    };
    for (const auto& m : doc.value("manifests", nlohmann::json::array()))
      if (!visit(m, true)) return std::nullopt;
    if (doc.contains("config") && !visit(doc["config"], false)) return std::nullopt;
    for (const auto& l : doc.value("layers", nlohmann::json::array()))
      if (!visit(l, false)) return std::nullopt;
    for (const auto& b : doc.value("blobs", nlohmann::json::array()))
      if (!visit(b, false)) return std::nullopt;
    if (doc.contains("subject") && !visit(doc["subject"], true)) return std::nullopt;
  }
  return seen;
}

// Removes the blobs no index entry reaches. Caller holds the layout lock.
LayoutGarbage remove_unreferenced_blobs(const fs::path& dir) {
  LayoutGarbage out;
  auto index = nlohmann::json::parse(read_file(dir / "index.json"), nullptr, false);
  if (!index.is_object()) return out;
  auto keep = referenced_blobs(dir, index);
  if (!keep) {
    spdlog::warn("{}: a manifest the index names is missing or unreadable; no blobs were removed", dir.string());
    return out;
  }
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir / "blobs" / "sha256", ec)) {
    std::string name = f.path().filename().string();
    if (name.size() != 64 || name.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    if (keep->count(name)) continue;
    uint64_t size = f.file_size(ec);
    if (fs::remove(f.path(), ec)) {
      ++out.blobs;
      out.bytes += ec ? 0 : size;
    }
  }
  return out;
}

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
    bool lost_race = false;
    try {
      fs::create_directories(tmp / "blobs" / "sha256");
      write_file_atomic(tmp / "oci-layout", kLayoutFile);
      put_blobs(image, store, tmp);
      write_file_atomic(tmp / "index.json", canonical_json(updated_index({}, image.manifest, tags)));
      if (dir.has_parent_path()) fs::create_directories(dir.parent_path());
      // rename(2) of a directory onto a non-empty one fails: another build created the layout
      // between the check above and here. Its layout is complete (it was renamed into place
      // whole), so this image is added to it below, under its lock, like to any existing layout.
      fs::rename(tmp, dir, ec);
      if (ec && ec != std::errc::directory_not_empty && ec != std::errc::file_exists)
        throw Error("cannot rename " + tmp.string() + " to " + dir.string() + ": " + ec.message());
      lost_race = static_cast<bool>(ec);
    } catch (...) {
      fs::remove_all(tmp, ec);
      throw;
    }
    if (!lost_race) return;
    fs::remove_all(tmp, ec);
  }
  if (!fs::is_directory(dir) || !fs::exists(dir / "oci-layout"))
    throw Error(dir.string() + " exists and is not an OCI image layout",
                "choose another directory, or remove it first");
  LayoutLock lock(dir);
  // What killed writers left: partial blobs and index temporaries, and new layouts never renamed.
  remove_orphaned_temporaries(dir / "blobs" / "sha256");
  remove_orphaned_temporaries(dir);
  if (!dir.filename().empty())
    remove_orphaned_temporaries(dir.has_parent_path() ? dir.parent_path() : fs::path("."), dir.filename().string() + ".tmp-");
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
  nlohmann::json index = updated_index(existing, image.manifest, tags);
  write_file_atomic(dir / "index.json", canonical_json(index));
  // A tag that moved may have left its old image's blobs behind: they go, as with `rockpack gc`.
  size_t before = existing.value("manifests", nlohmann::json::array()).size();
  bool replaced = before + (tags.empty() ? 1 : tags.size()) > index["manifests"].size();
  if (replaced) {
    LayoutGarbage g = remove_unreferenced_blobs(dir);
    if (g.blobs) spdlog::info("{}: removed {} blob{} no tag refers to any more", dir.string(), g.blobs, g.blobs == 1 ? "" : "s");
  }
}

LayoutGarbage collect_layout_garbage(const fs::path& dir) {
  if (!fs::is_directory(dir) || !fs::exists(dir / "oci-layout"))
    throw InputError(dir.string() + " is not an OCI image layout", "give the directory of an oci: layout");
  LayoutLock lock(dir);
  if (!nlohmann::json::parse(read_file(dir / "index.json"), nullptr, false).is_object())
    throw Error(dir.string() + "/index.json is not valid JSON", "repair the layout; nothing was removed");
  return remove_unreferenced_blobs(dir);
}

}  // namespace rp
