#pragma once
// Getting one blob into a repository, by the cheapest way that works:
//   1. HEAD: the repository already has it -> nothing to send;
//   2. cross-repository mount from a repository of the same registry known to hold it;
//   3. upload: one PUT for small blobs, PATCH chunks for large ones. A chunk that fails is not simply
//      sent again: the registry is asked how much arrived (GET on the upload, Range header) and the
//      upload continues from there. If the registry has lost the session, a new one starts.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "registry/options.hpp"
#include "registry/transport.hpp"

namespace rp::registry {

struct BlobSource {
  std::string digest;
  uint64_t size = 0;
  std::filesystem::path file;  // the blob's bytes, or
  const std::string* memory = nullptr;
  // Neither: the bytes are not here (a registry cache's layer, meant to be mounted). Called only
  // when they must be sent after all (not in the repository, not mounted); returns their file.
  std::function<std::filesystem::path()> fetch_file;
};

enum class UploadOutcome { kExisted, kMounted, kUploaded };

// `mount_from`: other repositories of the same registry believed to hold the blob.
UploadOutcome upload_blob(Transport& transport, const std::string& repository, const BlobSource& blob,
                          const std::vector<std::string>& mount_from, const RegistryOptions& options);

// Parses a Range header of an upload ("0-1234", "bytes=0-1234") into the number of bytes received.
// distribution answers "0-0" for an empty upload, so that reads as 0.
uint64_t parse_upload_range(const std::string& value);

}  // namespace rp::registry
