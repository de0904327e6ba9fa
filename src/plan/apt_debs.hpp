#pragma once
// The apt step's .deb part: the resolved packages downloaded into the store (parallel, each bounded
// by its index's Size and checked against its sha256), then each .deb made ready for the installer:
// its control files and its data.tar decompressed once into the store as a plain tar and indexed.
// Cached by the .deb's digest, so a warm build neither decompresses nor scans.
#include <string>
#include <vector>

#include "apt/deb_file.hpp"
#include "apt/installer.hpp"
#include "apt/resolver.hpp"
#include "assemble/tar_index.hpp"
#include "fetch/downloader.hpp"
#include "store/content_store.hpp"

namespace rp {

struct PreparedDeb {
  std::string deb_digest;  // the .deb in the store
  apt::ControlArchive control;
  TarIndex data;
};

// Downloads `jobs` (one per package of `resolution.install`, in its order) and prepares each .deb.
// Throws rp::Error when a .deb's size differs from its index's.
std::vector<PreparedDeb> download_and_prepare_debs(ContentStore& store, const std::vector<DownloadJob>& jobs,
                                                   const apt::Resolution& resolution, const DownloadOptions& downloads);

// A prepared .deb as the installer takes it: every data member streams from the plain tar.
apt::DebContents deb_contents(const ContentStore& store, const apt::Package& package, PreparedDeb prepared);

}  // namespace rp
