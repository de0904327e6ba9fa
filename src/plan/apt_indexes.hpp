#pragma once
// The apt step's first half: from source entries to every package they offer, through apt's chain
// of trust. For each source: InRelease (or Release + Release.gpg) fetched and verified with the
// source's keys (src/apt/signature), its dates and suite checked, then the Packages index of each
// component for the build's architecture (and binary-all when the Release lists it) downloaded into
// the store by the sha256 the Release gives (by-hash when offered), decompressed and parsed.
// Index files are fetched in parallel; the store keeps them by hash, so an unchanged index is not
// downloaded again. The Release itself is fetched on every build: it is what says "unchanged".
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apt/package_index.hpp"
#include "apt/preferences.hpp"
#include "apt/release.hpp"
#include "apt/signature.hpp"
#include "apt/sources.hpp"
#include "fetch/downloader.hpp"
#include "store/content_store.hpp"

namespace rp {

struct AptSourceState {
  apt::SourceEntry entry;
  apt::Release release;
  std::string signed_by;  // fingerprint of the key that signed the Release; "" for a trusted source
  std::string deb_base;   // the URL a package's Filename is relative to
  std::string release_sha256;  // of the InRelease (or Release) as fetched: what a lock file records
};

struct AptIndexes {
  std::vector<AptSourceState> sources;  // Package::origin indexes this
  struct Blob {
    size_t source = 0;
    std::string path;    // "main/binary-amd64/Packages.xz"
    std::string digest;  // the verified file in the store
  };
  std::vector<Blob> blobs;             // every index file, verified and in the store
  std::vector<apt::Package> packages;  // filled by parse_apt_indexes
  // The release facts of each blob (Package::release indexes it): what apt's pins match.
  std::vector<apt::ReleaseFacts> releases;
};

struct AptIndexOptions {
  std::string architecture = "amd64";
  int64_t now = 0;  // seconds since the epoch, for Valid-Until
  DownloadOptions downloads;
};

// Verifies every source's Release and downloads its indexes into the store (no parsing: a warm
// build whose resolution is cached never reads them). Throws rp::Error naming the source and what
// failed (unreachable, unsigned, bad signature, expired, index missing, hash mismatch).
AptIndexes load_apt_indexes(const std::vector<apt::SourceEntry>& entries,
                            const std::function<apt::Keyring(const apt::SourceEntry&)>& keyring_for, ContentStore& store,
                            const AptIndexOptions& options);

// Decompresses and parses the indexes into `indexes.packages`.
void parse_apt_indexes(AptIndexes& indexes, const ContentStore& store);

}  // namespace rp
