#pragma once
// A project published only as a source distribution that rockpack installs without building it,
// because it knows what building would produce (TheRock's `rocm`, see src/therock/rocm_package.hpp).
// The finder offers such a project's sdists to the resolver as if they were wheels; the python step
// installs them through this interface. Every other sdist is still refused.
#include <filesystem>
#include <optional>
#include <string>

#include "net/http.hpp"
#include "python/install_scheme.hpp"
#include "python/pep440.hpp"
#include "python/wheel_installer.hpp"

namespace rp::python {

struct SdistFile {
  std::string filename;  // "rocm-7.10.0a20251120.tar.gz"
  std::string url;       // no credentials
  std::string sha256;    // from the index; the download is checked against it
  net::Headers headers;  // the index's credentials, if any
  std::string origin;    // the index, for messages
};

class NativeSdist {
 public:
  virtual ~NativeSdist() = default;
  // The normalized name of the project handled.
  virtual std::string project() const = 0;
  // The core metadata (METADATA text) the installed distribution will have: its Requires-Dist are
  // what the resolver follows.
  virtual std::string metadata(const SdistFile& file) = 0;
  // Installs the sdist downloaded to `path` (checked against its sha256) into `scheme`.
  virtual InstalledWheel install(const std::filesystem::path& path, const InstallScheme& scheme,
                                 const InstallOptions& options) = 0;
};

// The version of an sdist file name "<name>-<version>.tar.gz" of project `normalized_name`;
// nullopt for any other file.
std::optional<Version> sdist_version(const std::string& filename, const std::string& normalized_name);

}  // namespace rp::python
