#include "output/image_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <fcntl.h>
#include <unistd.h>

#include <map>

#include "image/media_types.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp {

namespace {

constexpr uint64_t kMaxJsonSize = 8u << 20;  // manifests and configs; anything larger is hostile

nlohmann::json parse_json(const std::string& text, const std::string& what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what + " is not valid JSON: " + e.what());
  }
}

std::string read_small_blob(const fs::path& dir, const std::string& digest, const std::string& what) {
  fs::path p = dir / "blobs" / "sha256" / digest_hex(digest);
  std::error_code ec;
  auto size = fs::file_size(p, ec);
  if (ec) throw Error(what + " " + digest + " is missing from " + dir.string());
  if (size > kMaxJsonSize) throw Error(what + " " + digest + " in " + dir.string() + " is implausibly large");
  std::string bytes = read_file(p);
  if (sha256_digest(bytes) != digest) throw Error(what + " " + digest + " in " + dir.string() + " is corrupt");
  return bytes;
}

void fill_layers(LocalImage& img) {
  const auto& diff_ids = img.config.contains("rootfs") ? img.config["rootfs"].value("diff_ids", nlohmann::json::array())
                                                       : nlohmann::json::array();
  for (size_t i = 0; i < img.layers.size() && i < diff_ids.size(); ++i)
    if (diff_ids[i].is_string()) img.layers[i].diff_id = diff_ids[i];
}

// A pass over a tar with libarchive, handing each entry to `visit`.
template <typename Visit>
void scan_tar(const fs::path& file, Visit visit) {
  archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  archive_read_support_filter_all(a);
  if (archive_read_open_filename(a, file.c_str(), 1 << 20) != ARCHIVE_OK) {
    std::string why = archive_error_string(a) ? archive_error_string(a) : "unknown error";
    archive_read_free(a);
    throw Error("cannot open " + file.string() + ": " + why);
  }
  try {
    archive_entry* e;
    int r;
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
      while (name.rfind("./", 0) == 0) name = name.substr(2);
      visit(a, e, name);
    }
    if (r != ARCHIVE_EOF)
      throw Error(file.string() + " is not a readable tar: " +
                  (archive_error_string(a) ? archive_error_string(a) : "unknown error"));
  } catch (...) {
    archive_read_free(a);
    throw;
  }
  archive_read_free(a);
}

std::string read_entry_data(archive* a, archive_entry* e, const std::string& name) {
  auto size = archive_entry_size(e);
  if (size < 0 || static_cast<uint64_t>(size) > kMaxJsonSize) throw Error(name + " in the archive is too large");
  std::string data(static_cast<size_t>(size), '\0');
  if (size > 0 && archive_read_data(a, data.data(), data.size()) != size) throw Error("cannot read " + name);
  return data;
}

}  // namespace

LocalImage read_oci_layout(const fs::path& dir, const std::string& tag) {
  LocalImage img;
  img.source = "oci:" + dir.string() + (tag.empty() ? "" : ":" + tag);
  if (!fs::exists(dir / "oci-layout"))
    throw Error(dir.string() + " is not an OCI image layout (no oci-layout file)");
  auto index = parse_json(read_file(dir / "index.json"), dir.string() + "/index.json");
  std::vector<Descriptor> candidates;
  std::vector<std::string> tags_seen;
  for (const auto& m : index.value("manifests", nlohmann::json::array())) {
    Descriptor d = Descriptor::from_json(m, dir.string() + "/index.json");
    std::string ref = d.annotations.count("org.opencontainers.image.ref.name")
                          ? d.annotations["org.opencontainers.image.ref.name"]
                          : "";
    if (!ref.empty()) tags_seen.push_back(ref);
    if (tag.empty() || ref == tag) candidates.push_back(d);
  }
  if (candidates.empty() || (tag.empty() && candidates.size() > 1)) {
    std::string list;
    for (const auto& t : tags_seen) list += (list.empty() ? "" : ", ") + t;
    throw InputError(tag.empty() ? dir.string() + " holds several images: name one with oci:DIR:TAG"
                                 : "no image tagged '" + tag + "' in " + dir.string(),
                     list.empty() ? "" : "tags in this layout: " + list);
  }
  Descriptor desc = candidates.front();
  if (desc.media_type == media::kOciIndex || desc.media_type == media::kDockerManifestList)
    throw Error(img.source + " is a multi-platform index; rockpack reads single-platform images here");
  img.manifest = desc;
  img.manifest_json = parse_json(read_small_blob(dir, desc.digest, "manifest"), "manifest " + desc.digest);
  Descriptor config = Descriptor::from_json(img.manifest_json.value("config", nlohmann::json()), "manifest config");
  img.config_digest = config.digest;
  img.config = parse_json(read_small_blob(dir, config.digest, "config"), "config " + config.digest);
  for (const auto& l : img.manifest_json.value("layers", nlohmann::json::array())) {
    Descriptor d = Descriptor::from_json(l, "manifest layer");
    img.layers.push_back({d.media_type, d.digest, "blobs/sha256/" + digest_hex(d.digest),
                          static_cast<uint64_t>(d.size), ""});
  }
  fill_layers(img);
  return img;
}

LocalImage read_docker_archive(const fs::path& file) {
  LocalImage img;
  img.source = "docker-archive:" + file.string();
  std::map<std::string, uint64_t> sizes;
  std::map<std::string, std::string> small_json;  // path -> content, for manifest.json and configs
  scan_tar(file, [&](archive* a, archive_entry* e, const std::string& name) {
    sizes[name] = static_cast<uint64_t>(archive_entry_size(e));
    bool jsonish = name == "manifest.json" || name.ends_with(".json") ||
                   (name.rfind("blobs/sha256/", 0) == 0 && archive_entry_size(e) <= static_cast<int64_t>(kMaxJsonSize));
    if (jsonish && archive_entry_size(e) <= static_cast<int64_t>(kMaxJsonSize))
      small_json[name] = read_entry_data(a, e, name);
  });
  if (!small_json.count("manifest.json"))
    throw Error(file.string() + " is not a docker archive (no manifest.json)");
  auto manifest = parse_json(small_json["manifest.json"], file.string() + ":manifest.json");
  if (!manifest.is_array() || manifest.empty() || !manifest[0].is_object())
    throw Error(file.string() + ":manifest.json does not describe an image");
  const auto& m = manifest[0];
  std::string config_path = m.value("Config", "");
  if (!small_json.count(config_path)) throw Error(file.string() + ": config " + config_path + " is missing");
  img.config = parse_json(small_json[config_path], file.string() + ":" + config_path);
  img.config_digest = sha256_digest(small_json[config_path]);
  for (const auto& t : m.value("RepoTags", nlohmann::json::array()))
    if (t.is_string()) img.repo_tags.push_back(t);
  for (const auto& l : m.value("Layers", nlohmann::json::array())) {
    std::string path = l.is_string() ? l.get<std::string>() : "";
    if (!sizes.count(path)) throw Error(file.string() + ": layer " + path + " is missing");
    std::string digest;
    if (path.rfind("blobs/sha256/", 0) == 0 && is_valid_digest("sha256:" + path.substr(13)))
      digest = "sha256:" + path.substr(13);
    img.layers.push_back({"", digest, path, sizes[path], ""});
  }
  fill_layers(img);
  return img;
}

LocalImage read_local_image(const ImageLocation& where) {
  if (where.kind == ImageLocation::Kind::kOciLayout) return read_oci_layout(where.path, where.tag);
  return read_docker_archive(where.path);
}

namespace {

// Detects the compression of a layer blob from its first bytes.
const char* layer_media_type(const fs::path& blob) {
  char buf[4] = {};
  UniqueFd fd(::open(blob.c_str(), O_RDONLY | O_CLOEXEC));
  ssize_t n = fd.get() >= 0 ? ::read(fd.get(), buf, sizeof buf) : -1;
  std::string head(buf, n > 0 ? static_cast<size_t>(n) : 0);
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
    return media::kOciLayerGzip;
  if (head.size() >= 4 && head == std::string("\x28\xb5\x2f\xfd", 4)) return media::kOciLayerZstd;
  return media::kOciLayerTar;
}

}  // namespace

Image import_local_image(const ImageLocation& where, ContentStore& store, std::string* manifest_digest) {
  LocalImage local = read_local_image(where);
  Image img;
  img.config = local.config;
  if (local.layers.size() != local.config["rootfs"].value("diff_ids", nlohmann::json::array()).size())
    throw Error(local.source + ": the layer count does not match the config's diff_ids");
  if (where.kind == ImageLocation::Kind::kOciLayout) {
    for (const auto& l : local.layers) {
      if (!store.contains(l.digest)) {
        auto w = store.begin_blob();
        stream_file(fs::path(where.path) / l.path, *w);
        w->commit(l.digest);  // verifies
      }
      img.layers.push_back({{l.media_type == media::kDockerLayerGzip ? media::kOciLayerGzip : l.media_type,
                             l.digest, static_cast<int64_t>(l.size), {}, std::nullopt},
                            l.diff_id, 0});
    }
    if (manifest_digest && local.manifest) *manifest_digest = local.manifest->digest;
    return img;
  }
  // docker-archive: stream each layer member into the store in one pass over the tar.
  std::map<std::string, std::string> digest_of_path;
  scan_tar(where.path, [&](archive* a, archive_entry*, const std::string& name) {
    for (const auto& l : local.layers) {
      if (l.path != name || digest_of_path.count(name)) continue;
      auto w = store.begin_blob();
      std::string buf(1 << 20, '\0');
      la_ssize_t n;
      while ((n = archive_read_data(a, buf.data(), buf.size())) > 0) w->write(buf.data(), static_cast<size_t>(n));
      if (n < 0) throw Error("cannot read " + name + " from " + where.path);
      digest_of_path[name] = w->commit(l.digest);
    }
  });
  for (const auto& l : local.layers) {
    std::string digest = digest_of_path.at(l.path);
    img.layers.push_back({{layer_media_type(store.blob_path(digest)), digest,
                           static_cast<int64_t>(store.blob_size(digest)), {}, std::nullopt},
                          l.diff_id, 0});
  }
  if (manifest_digest) *manifest_digest = "";
  return img;
}

}  // namespace rp
