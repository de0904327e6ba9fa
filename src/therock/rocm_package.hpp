#pragma once
// TheRock's `rocm` distribution, installed without building its sdist: the requirements setup.py
// would compute come from `_dist_info.py` (dist_info.hpp) for the recipe's GPU targets, and the
// `rocm_sdk` package is installed with a dist-info written here — METADATA with those
// Requires-Dist, RECORD, INSTALLER, REQUESTED, entry_points.txt and the `rocm-sdk` launcher —
// as pip would leave it after building the sdist.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "net/file_fetcher.hpp"
#include "python/native_sdist.hpp"
#include "therock/rocm_sdist.hpp"

namespace rp::therock {

struct RocmPackageOptions {
  std::vector<std::string> targets;  // checked GPU targets ("gfx942")
  // Per-family layout with one index per family: each index's sdist knows only its own family, so
  // the families of all targets count as available.
  bool families_from_indexes = false;
  // Downloads the sdists (checked against their sha256); required.
  std::shared_ptr<net::FileFetcher> fetcher;
};

class RocmPackage final : public python::NativeSdist {
 public:
  explicit RocmPackage(RocmPackageOptions options) : options_(std::move(options)) {}

  std::string project() const override { return "rocm"; }
  // The core metadata of the sdist `file` (read_sdist).
  std::string metadata(const python::SdistFile& file) override;
  python::InstalledWheel install(const std::filesystem::path& path, const python::InstallScheme& scheme,
                                 const python::InstallOptions& options) override;

  // The sdist `file`: fetched (checked against file.sha256) and read once (later calls for the same version return what was read).
  const RocmSdist& read_sdist(const python::SdistFile& file);

 private:
  const RocmSdist& read(const std::filesystem::path& path, const std::string& filename);
  std::string metadata_text(const RocmSdist& sdist) const;

  RocmPackageOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, RocmSdist> read_;  // by version
};

// The Requires-Dist lines the rocm distribution declares for `targets`: the required packages, then
// per extra `name==V; extra == "<extra>"`. Exposed for tests.
std::vector<std::string> rocm_requires_dist(const DistInfo& info, const std::vector<std::string>& targets);

}  // namespace rp::therock
