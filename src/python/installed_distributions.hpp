#pragma once
// The Python distributions installed in an image, found the way importlib.metadata finds them: a
// `<name>-<version>.dist-info` directory with a METADATA file in a site-packages or dist-packages
// directory. Works on any image — ones rockpack built and ones pip or apt filled.
#include <string>
#include <string_view>
#include <vector>

#include "entries/file_tree.hpp"

namespace rp::python {

struct InstalledDistribution {
  std::string name;       // METADATA Name, as written
  std::string version;    // METADATA Version
  std::string location;   // the site directory, absolute ("/opt/venv/lib/python3.11/site-packages")
  std::string installer;  // INSTALLER's first line ("pip", "rockpack", "debian"); empty when absent
  bool requested = false;  // a REQUESTED file exists
};

// The files whose contents the search needs, for RootfsView::add_layer's `keep`.
bool distribution_file_of_interest(std::string_view path);

// Sorted by location, then normalized name. A METADATA that cannot be parsed is skipped with its
// directory name as the name and an empty version, rather than failing the whole listing.
std::vector<InstalledDistribution> find_installed_distributions(const FileTree& fs);

}  // namespace rp::python
