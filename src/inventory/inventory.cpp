#include "inventory/inventory.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <map>
#include <thread>
#include <tuple>

#include "image/rootfs_view.hpp"
#include "util/cpus.hpp"
#include "util/deb822.hpp"
#include "util/error.hpp"

namespace rp::inventory {

namespace {

constexpr std::string_view kDpkgStatus = "var/lib/dpkg/status";
constexpr std::string_view kDpkgStatusD = "var/lib/dpkg/status.d/";

// The files scanners read Python distributions from: a wheel's (or pip's) .dist-info/METADATA, and
// setuptools' PKG-INFO (an .egg-info directory or file, as Debian's python3-* packages install them,
// or an egg's EGG-INFO).
bool is_python_metadata(std::string_view path) {
  return path.ends_with(".dist-info/METADATA") || path.ends_with(".egg-info/PKG-INFO") ||
         path.ends_with("/EGG-INFO/PKG-INFO") || path.ends_with(".egg-info");
}

// The directory (or .egg-info file) a metadata file stands for.
std::string python_location(const std::string& path) {
  if (path.ends_with(".egg-info")) return "/" + path;
  return "/" + path.substr(0, path.rfind('/'));
}

bool is_status_d(std::string_view path) {
  // Not the -md5sums files distroless images keep beside each package's stanza.
  return path.starts_with(kDpkgStatusD) && path.size() > kDpkgStatusD.size() && !path.ends_with(".md5sums") &&
         path.find('/', kDpkgStatusD.size()) == std::string_view::npos;
}

bool is_distro_file(std::string_view path) {
  return path == "etc/os-release" || path == "usr/lib/os-release" || path == "etc/debian_version" ||
         path == "etc/lsb-release";
}

std::string type_name(EntryType t) {
  switch (t) {
    case EntryType::kDirectory: return "dir";
    case EntryType::kSymlink: return "symlink";
    default: return "file";
  }
}

// KEY=value lines (os-release, lsb-release), values unquoted.
std::string shell_var(const std::string& text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != '=') continue;
    std::string_view v = line.substr(key.size() + 1);
    while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.remove_suffix(1);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
    return std::string(v);
  }
  return "";
}

}  // namespace

std::vector<Package> parse_dpkg_status(const std::string& text, bool status_d) {
  std::vector<Package> out;
  Deb822Options options;
  options.strict = false;  // read as dpkg-query would: what cannot be parsed is skipped
  Deb822Reader reader(text, status_d ? "/var/lib/dpkg/status.d" : "/var/lib/dpkg/status", options);
  while (auto stanza = reader.next()) {
    // Packages removed but not purged stay in the file as "deinstall ok config-files". A status.d
    // stanza (distroless) has no Status: the file is there because the package is.
    const std::string status = stanza->value("Status");
    if (!(status_d && status.empty()) && !status.ends_with(" installed")) continue;
    Package p;
    p.kind = PackageKind::kDeb;
    p.name = stanza->value("Package");
    p.version = stanza->value("Version");
    p.arch = stanza->value("Architecture");
    std::string source = stanza->value("Source");
    p.source = source.substr(0, source.find(' '));  // "glibc (2.36-9)": the version is not part of the name
    if (!p.name.empty() && !p.version.empty()) out.push_back(std::move(p));
  }
  return out;
}

Package parse_python_metadata(const std::string& text) {
  Package p;
  p.kind = PackageKind::kPython;
  // METADATA's headers are its first stanza: the description body follows the first blank line.
  Deb822Options options;
  options.strict = false;
  Deb822Reader reader(text, "METADATA", options);
  if (auto headers = reader.next()) {
    p.name = headers->value("Name");
    p.version = headers->value("Version");
    p.license = headers->value("License-Expression");
    if (p.license.empty()) p.license = headers->value("License");
  }
  // Long license texts in License are common; keep only a one-line identifier-like value.
  if (p.license.size() > 100 || p.license.find('\n') != std::string::npos || p.license == "UNKNOWN") p.license.clear();
  return p;
}

std::vector<Package> rocm_packages_from_labels(const nlohmann::json& labels) {
  // The rocm step labels the image with the ROCm release it installed (its wheels are listed as
  // python packages too); the GPU families go into `arch`, so a family change is a change.
  std::vector<Package> out;
  if (!labels.is_object()) return out;
  auto version = labels.find("org.rockpack.rocm.version");
  if (version == labels.end() || !version->is_string()) return out;
  Package p;
  p.kind = PackageKind::kRocm;
  p.name = "rocm";
  p.version = version->get<std::string>();
  auto family = labels.find("org.rockpack.rocm.family");
  if (family != labels.end() && family->is_string()) p.arch = family->get<std::string>();
  out.push_back(p);
  return out;
}

bool is_package_file(std::string_view path) {
  return path == kDpkgStatus || is_status_d(path) || is_python_metadata(path) || is_distro_file(path);
}

std::vector<Package> installed_packages(const FileTree& tree) {
  std::vector<Package> out;
  if (auto status = tree.read(kDpkgStatus))
    for (auto& p : parse_dpkg_status(*status)) out.push_back(std::move(p));
  for (const auto& path : tree.find(is_status_d))
    if (auto text = tree.read(path))
      for (auto& p : parse_dpkg_status(*text, /*status_d=*/true)) out.push_back(std::move(p));
  for (const auto& path : tree.find(is_python_metadata)) {
    auto text = tree.read(path);  // nullopt for an .egg-info directory
    if (!text) continue;
    Package p = parse_python_metadata(*text);
    if (p.name.empty()) continue;
    p.location = python_location(path);
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const Package& a, const Package& b) {
    return std::tie(a.kind, a.name, a.location, a.arch) < std::tie(b.kind, b.name, b.location, b.arch);
  });
  return out;
}

Distro distro_of(const FileTree& tree) {
  Distro d;
  std::optional<std::string> os_release = tree.read("etc/os-release");
  if (!os_release) os_release = tree.read("usr/lib/os-release");
  if (os_release) {
    d.id = shell_var(*os_release, "ID");
    d.version = shell_var(*os_release, "VERSION_ID");
  }
  // Debian's point release is in debian_version ("12.5"), which scanners prefer to VERSION_ID ("12");
  // testing and unstable say "trixie/sid" there, and keep VERSION_ID.
  if (d.id == "debian" || (d.id.empty() && !tree.read("etc/lsb-release"))) {
    if (auto v = tree.read("etc/debian_version")) {
      std::string line = v->substr(0, v->find('\n'));
      if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
        d.id = "debian";
        d.version = line;
      }
    }
  }
  if (d.id.empty() || d.version.empty()) {
    if (auto lsb = tree.read("etc/lsb-release")) {
      std::string id = shell_var(*lsb, "DISTRIB_ID");
      for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!id.empty()) d.id = id;
      d.version = shell_var(*lsb, "DISTRIB_RELEASE");
    }
  }
  return d;
}

nlohmann::json to_json(const Package& p) {
  nlohmann::json j = {{"kind", inventory_kind_name(p.kind)}, {"name", p.name}, {"version", p.version}};
  if (!p.arch.empty()) j["arch"] = p.arch;
  if (!p.source.empty()) j["source"] = p.source;
  if (!p.license.empty()) j["license"] = p.license;
  if (!p.location.empty()) j["location"] = p.location;
  return j;
}

namespace {

// What one image holds, from its view with every layer applied.
Inventory inventory_of(const Image& image, const RootfsView& view, bool with_files) {
  Inventory inv;
  inv.config = image.config.is_object() ? image.config.value("config", nlohmann::json::object()) : nlohmann::json::object();
  if (!inv.config.is_object()) inv.config = nlohmann::json::object();
  for (const auto& layer : image.layers)
    inv.layers.push_back({layer.blob.digest, layer.diff_id, static_cast<uint64_t>(layer.blob.size)});
  inv.packages = installed_packages(view);
  for (auto& p : rocm_packages_from_labels(inv.config.value("Labels", nlohmann::json::object())))
    inv.packages.push_back(std::move(p));
  std::sort(inv.packages.begin(), inv.packages.end(), [](const Package& a, const Package& b) {
    return std::tie(a.kind, a.name, a.location, a.arch) < std::tie(b.kind, b.name, b.location, b.arch);
  });
  if (with_files) {
    for (const auto& path : view.find([](std::string_view) { return true; })) {
      auto node = view.lstat(path);
      if (!node) continue;
      inv.files.push_back({"/" + path, type_name(node->type), node->type == EntryType::kFile ? node->size : 0,
                           node->mode, node->link_target});
    }
  }
  return inv;
}

// Runs work(i) for i in [0, n) on `threads` threads (this one among them); the first exception (by
// index) is rethrown once all have finished.
template <typename Work>
void parallel_for(size_t n, unsigned threads, const Work& work) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        work(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < n; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

std::vector<std::shared_ptr<const RootfsView::LayerRead>> read_package_files(const Image& image, const ContentStore& store,
                                                                             unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::shared_ptr<const RootfsView::LayerRead>> out(image.layers.size());
  // Biggest first, so that the last blob to finish is a small one.
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return image.layers[a].blob.size > image.layers[b].blob.size; });
  parallel_for(order.size(), threads, [&](size_t k) {
    const ImageLayer& layer = image.layers[order[k]];
    out[order[k]] = RootfsView::read_layer(store, layer.blob, is_package_file, layer.diff_id);
  });
  return out;
}

Inventory take_inventory(const Image& image, const ContentStore& store, bool with_files) {
  return std::move(take_inventories({ImageBlobs{&image, nullptr}}, store, with_files).front());
}

std::vector<Inventory> take_inventories(const std::vector<ImageBlobs>& images, const ContentStore& store,
                                        bool with_files, unsigned threads) {
  if (threads == 0) threads = worker_count();
  // Every distinct blob once; a layer both images have (the same digest) is read for both.
  // Keyed by digest and diff_id: each diff_id a config claims is checked against the bytes.
  struct Job {
    const Descriptor* blob = nullptr;
    const std::string* diff_id = nullptr;
    const fs::path* file = nullptr;  // in place, or null: the store's copy
    std::shared_ptr<const RootfsView::LayerRead> read;
  };
  std::vector<Job> jobs;
  std::map<std::pair<std::string, std::string>, size_t> job_of;
  for (const auto& img : images) {
    if (img.blob_paths && img.blob_paths->size() != img.image->layers.size())
      throw Error("internal error: " + std::to_string(img.blob_paths->size()) + " blob paths for " +
                  std::to_string(img.image->layers.size()) + " layers");
    for (size_t i = 0; i < img.image->layers.size(); ++i) {
      const ImageLayer& layer = img.image->layers[i];
      if (job_of.emplace(std::make_pair(layer.blob.digest, layer.diff_id), jobs.size()).second)
        jobs.push_back({&layer.blob, &layer.diff_id, img.blob_paths ? &(*img.blob_paths)[i] : nullptr, nullptr});
    }
  }
  // Biggest first, so that the last blob to finish is a small one.
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].blob->size > jobs[b].blob->size; });
  // The images are untrusted: what their layers may hold in memory is bounded, over all of them.
  RootfsView::MetadataBudget budget;
  parallel_for(order.size(), threads, [&](size_t k) {
    Job& job = jobs[order[k]];
    job.read = job.file ? RootfsView::read_layer(*job.file, *job.blob, is_package_file, *job.diff_id, &budget)
                        : RootfsView::read_layer(store, *job.blob, is_package_file, *job.diff_id, &budget);
  });
  std::vector<Inventory> out(images.size());
  parallel_for(images.size(), threads, [&](size_t n) {
    const Image& image = *images[n].image;
    RootfsView view;
    for (const auto& layer : image.layers) view.apply_layer(*jobs[job_of.at({layer.blob.digest, layer.diff_id})].read);
    out[n] = inventory_of(image, view, with_files);
  });
  return out;
}

}  // namespace rp::inventory
