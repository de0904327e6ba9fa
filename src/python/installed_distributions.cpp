#include "python/installed_distributions.hpp"

#include <algorithm>

#include "python/core_metadata.hpp"
#include "python/text.hpp"

namespace rp::python {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view parent(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

std::string_view base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_site_directory(std::string_view dir) {
  std::string_view name = base_name(dir);
  return name == "site-packages" || name == "dist-packages";
}

}  // namespace

bool distribution_file_of_interest(std::string_view path) {
  std::string_view dir = parent(path);
  if (!ends_with(dir, ".dist-info") || !is_site_directory(parent(dir))) return false;
  std::string_view file = base_name(path);
  return file == "METADATA" || file == "INSTALLER";
}

std::vector<InstalledDistribution> find_installed_distributions(const FileTree& fs) {
  std::vector<std::string> metadata_files = fs.find([](std::string_view path) {
    return base_name(path) == "METADATA" && distribution_file_of_interest(path);
  });
  std::vector<InstalledDistribution> out;
  for (const auto& path : metadata_files) {
    std::string_view dist_info = parent(path);
    InstalledDistribution d;
    d.location = "/" + std::string(parent(dist_info));
    std::string text = fs.read(path).value_or("");
    try {
      CoreMetadata m = CoreMetadata::parse(text, path);
      d.name = m.name;
      d.version = m.version.to_string();
    } catch (const std::exception&) {
      d.name = std::string(base_name(dist_info));
    }
    std::string installer = fs.read(std::string(dist_info) + "/INSTALLER").value_or("");
    d.installer = installer.substr(0, installer.find_first_of("\r\n"));
    d.requested = fs.lstat(std::string(dist_info) + "/REQUESTED").has_value();
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const InstalledDistribution& a, const InstalledDistribution& b) {
    return std::make_pair(a.location, normalize_name(a.name)) < std::make_pair(b.location, normalize_name(b.name));
  });
  return out;
}

}  // namespace rp::python
