#include "output/image_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <fcntl.h>
#include <unistd.h>

#include <map>

#include "image/media_types.hpp"
#include "util/strings.hpp"
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

// Manifests, configs and indexes are JSON objects; anything else is a damaged or hostile archive.
nlohmann::json parse_object(const std::string& text, const std::string& what) {
  nlohmann::json j = parse_json(text, what);
  if (!j.is_object()) throw Error(what + " is not a JSON object");
  return j;
}

// The config's rootfs.diff_ids, or an empty list when it has none (or something else in its place).
nlohmann::json diff_ids_of(const nlohmann::json& config) {
  if (!config.is_object() || !config.contains("rootfs") || !config["rootfs"].is_object()) return nlohmann::json::array();
  auto ids = config["rootfs"].value("diff_ids", nlohmann::json::array());
  return ids.is_array() ? ids : nlohmann::json::array();
}

void fill_layers(LocalImage& img) {
  const auto diff_ids = diff_ids_of(img.config);
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

namespace {

// The files of an OCI layout, wherever they are: a directory, or the members of a tar.
class LayoutFiles {
 public:
  virtual ~LayoutFiles() = default;
  virtual bool has(const std::string& rel) const = 0;
  // A small file (index.json, a manifest, a config); throws when missing or implausibly large.
  virtual std::string read_small(const std::string& rel, const std::string& what) const = 0;
};

class DirectoryFiles final : public LayoutFiles {
 public:
  explicit DirectoryFiles(fs::path dir) : dir_(std::move(dir)) {}
  bool has(const std::string& rel) const override {
    std::error_code ec;
    return fs::exists(dir_ / rel, ec);
  }
  std::string read_small(const std::string& rel, const std::string& what) const override {
    std::error_code ec;
    auto size = fs::file_size(dir_ / rel, ec);
    if (ec) throw Error(what + " is missing from " + dir_.string());
    if (size > kMaxJsonSize) throw Error(what + " in " + dir_.string() + " is implausibly large");
    return read_file(dir_ / rel);
  }

 private:
  fs::path dir_;
};

// The small members of a tar, read in one pass (layers are only sized; they stay in the tar).
class TarFiles final : public LayoutFiles {
 public:
  explicit TarFiles(const fs::path& file) : file_(file) {
    scan_tar(file, [&](archive* a, archive_entry* e, const std::string& name) {
      if (archive_entry_filetype(e) != AE_IFREG) return;
      sizes_[name] = static_cast<uint64_t>(std::max<la_int64_t>(archive_entry_size(e), 0));
      if (archive_entry_size(e) <= static_cast<int64_t>(kMaxJsonSize)) small_[name] = read_entry_data(a, e, name);
    });
  }
  bool has(const std::string& rel) const override { return sizes_.count(rel) > 0; }
  std::string read_small(const std::string& rel, const std::string& what) const override {
    auto it = small_.find(rel);
    if (it != small_.end()) return it->second;
    if (sizes_.count(rel)) throw Error(what + " in " + file_.string() + " is implausibly large");
    throw Error(what + " is missing from " + file_.string());
  }
  const std::map<std::string, uint64_t>& sizes() const { return sizes_; }

 private:
  fs::path file_;
  std::map<std::string, uint64_t> sizes_;
  std::map<std::string, std::string> small_;
};

std::string read_blob(const LayoutFiles& files, const std::string& where, const std::string& digest,
                      const std::string& what) {
  std::string bytes = files.read_small("blobs/sha256/" + digest_hex(digest), what + " " + digest);
  if (sha256_digest(bytes) != digest) throw Error(what + " " + digest + " in " + where + " is corrupt");
  return bytes;
}

std::string ref_name(const Descriptor& d) {
  auto it = d.annotations.find("org.opencontainers.image.ref.name");
  return it == d.annotations.end() ? "" : it->second;
}

// The image tagged `tag` (or the only one; several tags of one digest count as one image).
LocalImage read_layout(const LayoutFiles& files, const std::string& where, const std::string& source,
                       const std::string& tag) {
  LocalImage img;
  img.source = source;
  if (!files.has("oci-layout")) throw Error(where + " is not an OCI image layout (no oci-layout file)");
  auto index = parse_object(files.read_small("index.json", "index.json"), where + "/index.json");
  std::vector<Descriptor> candidates;
  std::vector<std::string> tags_seen;
  for (const auto& m : index.value("manifests", nlohmann::json::array())) {
    Descriptor d = Descriptor::from_json(m, where + "/index.json");
    std::string ref = ref_name(d);
    if (!ref.empty()) tags_seen.push_back(ref);
    if (tag.empty() || ref == tag) candidates.push_back(d);
  }
  bool one_digest = !candidates.empty() && std::all_of(candidates.begin(), candidates.end(), [&](const Descriptor& d) {
    return d.digest == candidates.front().digest;
  });
  if (!one_digest) {
    std::string list;
    for (const auto& t : tags_seen) list += (list.empty() ? "" : ", ") + t;
    bool several = !candidates.empty();
    throw InputError(several          ? where + " holds several images: name one with " +
                                   (source.rfind("oci-archive:", 0) == 0 ? "oci-archive:FILE:TAG" : "oci:DIR:TAG")
                     : tag.empty() ? where + " holds no image"
                                   : "no image tagged '" + tag + "' in " + where,
                     list.empty() ? "" : "tags in this layout: " + list);
  }
  Descriptor desc = candidates.front();
  for (const auto& c : candidates)
    if (!ref_name(c).empty()) img.repo_tags.push_back(ref_name(c));
  if (desc.media_type == media::kOciIndex || desc.media_type == media::kDockerManifestList)
    throw Error(img.source + " is a multi-platform index; rockpack reads single-platform images here");
  desc.annotations.clear();
  img.manifest = desc;
  img.manifest_bytes = read_blob(files, where, desc.digest, "manifest");
  img.manifest_json = parse_object(img.manifest_bytes, "manifest " + desc.digest);
  Descriptor config = Descriptor::from_json(img.manifest_json.value("config", nlohmann::json()), "manifest config");
  img.config_digest = config.digest;
  img.config_media_type = config.media_type;
  img.config_bytes = read_blob(files, where, config.digest, "config");
  img.config = parse_object(img.config_bytes, "config " + config.digest);
  for (const auto& l : img.manifest_json.value("layers", nlohmann::json::array())) {
    Descriptor d = Descriptor::from_json(l, "manifest layer");
    img.layers.push_back({d.media_type, d.digest, "blobs/sha256/" + digest_hex(d.digest),
                          static_cast<uint64_t>(d.size), ""});
  }
  fill_layers(img);
  return img;
}

}  // namespace

LocalImage read_oci_layout(const fs::path& dir, const std::string& tag) {
  return read_layout(DirectoryFiles(dir), dir.string(), "oci:" + dir.string() + (tag.empty() ? "" : ":" + tag), tag);
}

LocalImage read_oci_archive(const fs::path& file, const std::string& tag) {
  return read_layout(TarFiles(file), file.string(),
                     "oci-archive:" + file.string() + (tag.empty() ? "" : ":" + tag), tag);
}

LocalImage docker_image_from_members(const std::string& file, DockerArchiveMembers members) {
  LocalImage img;
  img.source = "docker-archive:" + file;
  auto& small_json = members.small_json;
  if (!small_json.count("manifest.json")) throw Error(file + " is not a docker archive (no manifest.json)");
  auto manifest = parse_json(small_json["manifest.json"], file + ":manifest.json");
  if (!manifest.is_array() || manifest.empty() || !manifest[0].is_object())
    throw Error(file + ":manifest.json does not describe an image");
  const auto& m = manifest[0];
  std::string config_path = m.contains("Config") && m["Config"].is_string() ? m["Config"].get<std::string>() : "";
  if (!small_json.count(config_path)) throw Error(file + ": config " + config_path + " is missing");
  img.config = parse_object(small_json[config_path], file + ":" + config_path);
  img.config_digest = sha256_digest(small_json[config_path]);
  for (const auto& t : m.value("RepoTags", nlohmann::json::array()))
    if (t.is_string()) img.repo_tags.push_back(t);
  for (const auto& l : m.value("Layers", nlohmann::json::array())) {
    std::string path = l.is_string() ? l.get<std::string>() : "";
    for (int hops = 0; members.links.count(path) && hops < 8; ++hops) path = members.links[path];
    if (!members.sizes.count(path)) throw Error(file + ": layer " + shorten(path) + " is missing (or a link to nothing)");
    std::string digest;
    if (path.rfind("blobs/sha256/", 0) == 0 && is_valid_digest("sha256:" + path.substr(13)))
      digest = "sha256:" + path.substr(13);
    img.layers.push_back({"", digest, path, members.sizes[path], ""});
  }
  fill_layers(img);
  return img;
}

LocalImage read_docker_archive(const fs::path& file) {
  DockerArchiveMembers members;
  scan_tar(file, [&](archive* a, archive_entry* e, const std::string& name) {
    // Older `docker save` writes a layer that repeats an earlier one as a symlink (or hardlink) to it.
    if (archive_entry_filetype(e) == AE_IFLNK && archive_entry_symlink(e)) {
      fs::path target = fs::path(name).parent_path() / archive_entry_symlink(e);
      members.links[name] = target.lexically_normal().string();
      return;
    }
    if (const char* hard = archive_entry_hardlink(e)) {
      std::string target = hard;
      while (target.rfind("./", 0) == 0) target = target.substr(2);
      members.links[name] = target;
      return;
    }
    members.sizes[name] = static_cast<uint64_t>(archive_entry_size(e));
    bool jsonish = name == "manifest.json" || name.ends_with(".json") ||
                   (name.rfind("blobs/sha256/", 0) == 0 && archive_entry_size(e) <= static_cast<int64_t>(kMaxJsonSize));
    if (jsonish && archive_entry_size(e) <= static_cast<int64_t>(kMaxJsonSize))
      members.small_json[name] = read_entry_data(a, e, name);
  });
  return docker_image_from_members(file.string(), std::move(members));
}

LocalImage read_local_image(const ImageLocation& where) {
  switch (where.kind) {
    case ImageLocation::Kind::kOciLayout: return read_oci_layout(where.path, where.tag);
    case ImageLocation::Kind::kOciArchive: return read_oci_archive(where.path, where.tag);
    case ImageLocation::Kind::kDockerArchive: return read_docker_archive(where.path);
  }
  throw Error("unknown image location " + where.str());
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

std::string normalized_layer_type(const std::string& type) {
  return type == media::kDockerLayerGzip ? media::kOciLayerGzip : type;
}

}  // namespace

Image import_local_image(const ImageLocation& where, ContentStore& store, std::string* manifest_digest) {
  LocalImage local = read_local_image(where);
  Image img;
  img.config = local.config;
  if (local.layers.size() != diff_ids_of(local.config).size())
    throw Error(local.source + ": the layer count does not match the config's diff_ids");
  if (where.kind == ImageLocation::Kind::kOciLayout) {
    for (const auto& l : local.layers) {
      if (!store.contains(l.digest)) {
        // A layout is copied around by hand: name the image and the layer when a blob is missing
        // or is not what its name says (the store's own message names neither).
        fs::path blob = fs::path(where.path) / l.path;
        std::error_code ec;
        if (!fs::is_regular_file(blob, ec))
          throw Error(local.source + ": layer " + l.digest + " is missing from the layout (" + blob.string() + ")",
                      "the layout is incomplete: copy the image into it again (skopeo copy, or the tool that made it)");
        try {
          auto w = store.begin_blob();
          stream_file(blob, *w);
          w->commit(l.digest);  // verifies
        } catch (const Error& e) {
          throw Error(local.source + ": layer " + l.digest + " (" + blob.string() + "): " + e.what(),
                      "the layout is damaged: copy the image into it again");
        }
      }
      img.layers.push_back({{normalized_layer_type(l.media_type),
                             l.digest, static_cast<int64_t>(l.size), {}, std::nullopt},
                            l.diff_id, 0});
    }
    if (manifest_digest && local.manifest) *manifest_digest = local.manifest->digest;
    return img;
  }
  // docker-archive and oci-archive: stream each layer member into the store in one pass over the tar.
  std::map<std::string, std::string> digest_of_path;
  scan_tar(where.path, [&](archive* a, archive_entry*, const std::string& name) {
    for (const auto& l : local.layers) {
      if (l.path != name || digest_of_path.count(name)) continue;
      if (!l.digest.empty() && store.contains(l.digest)) {
        digest_of_path[name] = l.digest;
        continue;
      }
      auto w = store.begin_blob();
      std::string buf(1 << 20, '\0');
      la_ssize_t n;
      while ((n = archive_read_data(a, buf.data(), buf.size())) > 0) w->write(buf.data(), static_cast<size_t>(n));
      if (n < 0) throw Error("cannot read " + name + " from " + where.path);
      digest_of_path[name] = w->commit(l.digest);
    }
  });
  for (const auto& l : local.layers) {
    if (!digest_of_path.count(l.path)) throw Error(local.source + ": layer " + l.path + " is missing from the archive");
    std::string digest = digest_of_path.at(l.path);
    std::string type = !l.media_type.empty() ? normalized_layer_type(l.media_type)
                                             : std::string(layer_media_type(store.blob_path(digest)));
    img.layers.push_back({{type, digest,
                           static_cast<int64_t>(store.blob_size(digest)), {}, std::nullopt},
                          l.diff_id, 0});
  }
  if (manifest_digest) *manifest_digest = local.manifest ? local.manifest->digest : "";
  return img;
}

Image read_oci_layout_in_place(const ImageLocation& where, std::vector<fs::path>& blob_paths,
                               std::string* manifest_digest, bool check_blobs) {
  if (where.kind != ImageLocation::Kind::kOciLayout) throw Error("internal error: " + where.path + " is not an OCI layout");
  LocalImage local = read_local_image(where);
  Image img;
  img.config = local.config;
  if (local.layers.size() != diff_ids_of(local.config).size())
    throw Error(local.source + ": the layer count does not match the config's diff_ids");
  blob_paths.clear();
  for (const auto& l : local.layers) {
    fs::path blob = fs::path(where.path) / l.path;
    std::error_code ec;
    if (check_blobs && !fs::is_regular_file(blob, ec))
      throw Error(local.source + ": layer " + l.digest + " is missing from the layout (" + blob.string() + ")",
                  "the layout is incomplete: copy the image into it again (skopeo copy, or the tool that made it)");
    blob_paths.push_back(blob);
    img.layers.push_back({{normalized_layer_type(l.media_type), l.digest, static_cast<int64_t>(l.size), {}, std::nullopt},
                          l.diff_id, 0});
  }
  if (manifest_digest && local.manifest) *manifest_digest = local.manifest->digest;
  return img;
}

SealedImage seal_local_image(const ImageLocation& where, ContentStore& store) {
  std::string manifest_digest;
  Image img = import_local_image(where, store, &manifest_digest);
  if (manifest_digest.empty()) return seal(img);  // a legacy docker archive: a new OCI manifest
  LocalImage local = read_local_image(where);
  SealedImage s;
  s.manifest_bytes = local.manifest_bytes;
  s.manifest = *local.manifest;
  s.config_bytes = local.config_bytes;
  s.config.media_type = local.config_media_type.empty() ? std::string(media::kOciConfig) : local.config_media_type;
  s.config.digest = local.config_digest;
  s.config.size = static_cast<int64_t>(local.config_bytes.size());
  s.layers = img.layers;
  // The layer descriptors as the manifest has them (media types untouched), so the bytes stay.
  auto layers = local.manifest_json.value("layers", nlohmann::json::array());
  for (size_t i = 0; i < s.layers.size() && i < layers.size(); ++i)
    s.layers[i].blob = Descriptor::from_json(layers[i], local.source + " layer");
  s.platform.os = local.config.value("os", "linux");
  s.platform.architecture = local.config.value("architecture", "amd64");
  s.platform.variant = local.config.value("variant", "");
  s.manifest.platform = s.platform;
  return s;
}

}  // namespace rp
