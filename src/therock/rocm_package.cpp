#include "therock/rocm_package.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "entries/entry.hpp"
#include "python/core_metadata.hpp"
#include "python/entry_points.hpp"
#include "python/script_launcher.hpp"
#include "python/text.hpp"
#include "python/wheel_record.hpp"
#include "therock/families.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::therock {

namespace {

// Image paths carry no leading '/'.
std::string image_path(const std::string& absolute) {
  return absolute.empty() || absolute.front() != '/' ? absolute : absolute.substr(1);
}

Entry file_entry(const std::string& path, std::string content, uint32_t mode, const std::string& origin) {
  Entry e;
  e.path = image_path(path);
  e.type = EntryType::kFile;
  e.mode = mode;
  e.content = std::make_shared<InlineContent>(std::move(content));
  e.origin = origin;
  return e;
}

}  // namespace

std::vector<std::string> rocm_requires_dist(const DistInfo& info, const std::vector<std::string>& targets) {
  IndexLayout layout = layout_of(info);
  std::vector<std::string> lines;
  std::vector<std::string> required;
  for (const auto& r : requirements_for(info, targets, {}, layout)) {
    required.push_back(r.normalized_name());
    lines.push_back(r.to_string());
  }
  for (const auto& extra : known_extras(info, layout)) {
    for (const auto& r : requirements_for(info, targets, {extra}, layout)) {
      if (std::find(required.begin(), required.end(), r.normalized_name()) != required.end()) continue;
      lines.push_back(r.to_string() + "; extra == \"" + extra + "\"");
    }
  }
  return lines;
}

const RocmSdist& RocmPackage::read(const std::filesystem::path& path, const std::string& filename) {
  RocmSdist sdist = read_rocm_sdist(path, filename);
  if (options_.families_from_indexes) {
    for (const auto& family : families_for(options_.targets)) {
      auto& available = sdist.dist_info.available_families;
      if (std::find(available.begin(), available.end(), family) == available.end()) available.push_back(family);
    }
  }
  std::lock_guard lock(mu_);
  return read_.insert_or_assign(sdist.dist_info.version, std::move(sdist)).first->second;
}

const RocmSdist& RocmPackage::read_sdist(const python::SdistFile& file) {
  if (!options_.fetcher) throw Error("internal: the rocm package was given no file fetcher");
  fs::path path = options_.fetcher->fetch(
      {file.url, file.sha256, file.headers, "the rocm sdist " + file.filename + " (" + file.origin + ")"});
  return read(path, file.filename);
}

std::string RocmPackage::metadata(const python::SdistFile& file) { return metadata_text(read_sdist(file)); }

std::string RocmPackage::metadata_text(const RocmSdist& sdist) const {
  const DistInfo& info = sdist.dist_info;
  python::CoreMetadata pkg = python::CoreMetadata::parse(sdist.pkg_info, sdist.root + "/PKG-INFO");
  std::string text = "Metadata-Version: 2.1\nName: rocm\nVersion: " + info.version + "\n";
  text += "Summary: ROCm SDK (TheRock), installed by rockpack from " + sdist.root + ".tar.gz\n";
  if (pkg.requires_python) text += "Requires-Python: " + pkg.requires_python->to_string() + "\n";
  for (const auto& line : rocm_requires_dist(info, options_.targets)) text += "Requires-Dist: " + line + "\n";
  for (const auto& extra : known_extras(info, layout_of(info))) text += "Provides-Extra: " + extra + "\n";
  return text;
}

python::InstalledWheel RocmPackage::install(const std::filesystem::path& path, const python::InstallScheme& scheme,
                                            const python::InstallOptions& options) {
  const RocmSdist& sdist = read(path, options.filename.empty() ? path.filename().string() : options.filename);
  const std::string version = sdist.dist_info.version;
  const std::string origin = options.filename.empty() ? sdist.root + ".tar.gz" : options.filename;
  python::InstalledWheel out;
  out.filename = origin;
  out.name = "rocm";
  out.normalized_name = "rocm";
  out.version = python::Version::parse(version);
  const std::string site = scheme.purelib;
  const std::string dist_info = site + "/rocm-" + version + ".dist-info";
  out.dist_info = image_path(dist_info);

  std::vector<python::RecordRow> record;
  auto add = [&](const std::string& absolute, std::string content, uint32_t mode) {
    record.push_back({python::relative_path(site, absolute), python::record_hash(content),
                      std::to_string(content.size())});
    out.entries.push_back(file_entry(absolute, std::move(content), mode, origin));
  };
  for (const auto& f : sdist.package_files) add(site + "/" + f.path, f.content, f.executable ? 0755 : 0644);

  // The console script setup.py declares (setup.py itself is code and is not read).
  python::EntryPoints entry_points = python::EntryPoints::parse(
      "[console_scripts]\n" + std::string(kRocmSdkConsoleScript) + "\n", origin + " entry points");
  for (const auto& ep : entry_points.console_scripts())
    add(scheme.scripts + "/" + ep.name, python::entry_point_launcher(ep, scheme.python), 0755);

  std::string metadata = metadata_text(sdist);
  out.metadata = python::CoreMetadata::parse(metadata, origin + " METADATA");
  add(dist_info + "/METADATA", std::move(metadata), 0644);
  add(dist_info + "/WHEEL", "Wheel-Version: 1.0\nGenerator: rockpack (native rocm sdist install)\nRoot-Is-Purelib: true\nTag: py3-none-any\n", 0644);
  add(dist_info + "/entry_points.txt", "[console_scripts]\n" + std::string(kRocmSdkConsoleScript) + "\n", 0644);
  add(dist_info + "/top_level.txt", "rocm_sdk\n", 0644);
  add(dist_info + "/INSTALLER", options.installer + "\n", 0644);
  if (options.requested) add(dist_info + "/REQUESTED", "", 0644);
  record.push_back({python::relative_path(site, dist_info + "/RECORD"), "", ""});
  std::sort(record.begin(), record.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  out.entries.push_back(file_entry(dist_info + "/RECORD", python::format_record(record), 0644, origin));

  for (const auto& e : out.entries) out.files.push_back(e.path);
  std::sort(out.files.begin(), out.files.end());
  spdlog::debug("rocm: {} installed natively ({} files)", origin, out.files.size());
  return out;
}

}  // namespace rp::therock
