#pragma once
// What an image holds, as a list: its config, its layers and the packages installed in it (Debian
// packages from dpkg's status file, Python distributions from their .dist-info METADATA, ROCm from
// the image's org.rockpack.rocm.* labels) and, when asked, every file. The layers are streamed once
// through a RootfsView (metadata of every path, contents of the few files parsed); nothing is
// unpacked to disk. Used by `rockpack diff`, and meant for SBOMs of images rockpack did not build.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "image/image.hpp"
#include "store/content_store.hpp"

namespace rp::inventory {

struct Package {
  std::string kind;     // "deb", "python" or "rocm"
  std::string name;
  std::string version;
  std::string arch;     // deb: Architecture; rocm: the GPU families
  std::string source;   // deb: Source (without its version); empty when it is the package itself
  std::string license;  // python: License / License-Expression, when the metadata has one
  std::string location; // python: the .dist-info directory
};

struct File {
  std::string path;  // absolute
  std::string type;  // "file", "dir", "symlink"
  uint64_t size = 0;
  uint32_t mode = 0;
  std::string link_target;
};

struct Layer {
  std::string digest;   // the blob as stored (differs between an OCI layout and a docker archive)
  std::string diff_id;  // the uncompressed tar: what makes two layers the same
  uint64_t size = 0;
};

struct Inventory {
  std::string source;          // as the user named it
  std::string manifest_digest; // empty for a legacy docker archive
  nlohmann::json config;       // the config's "config" object (Env, Entrypoint, Cmd, User, WorkingDir, Labels)
  std::vector<Layer> layers;
  std::vector<Package> packages;  // sorted by kind, name, location
  std::vector<File> files;        // sorted by path; only with `with_files`
};

// Reads `image`'s layers (blobs in `store`, each verified as it streams) and lists what it holds.
// Throws rp::Error for a corrupt layer.
Inventory take_inventory(const Image& image, const ContentStore& store, bool with_files);

// One image for take_inventories: its layer blobs in the store, or, when `blob_paths` is given,
// layer i read in place from (*blob_paths)[i].
struct ImageBlobs {
  const Image* image = nullptr;
  const std::vector<fs::path>* blob_paths = nullptr;
};
// The inventories of several images at once: every distinct layer blob (by digest) is read once,
// on `threads` threads (0: util/cpus.hpp's worker count), biggest first, each verified as it streams (its digest,
// and its diff_id for a gzip or plain tar layer); then each
// image's view is assembled from its layers in order (the images on their own threads). A layer two
// images share is read once. Memory: the metadata of the layers' paths, not their contents, bounded
// over all the images (RootfsView::MetadataBudget: files, path bytes, kept package lists).
// Throws rp::Error for a corrupt layer (the first in image and layer order), rp::InputError past a bound.
std::vector<Inventory> take_inventories(const std::vector<ImageBlobs>& images, const ContentStore& store,
                                        bool with_files, unsigned threads = 0);

// Parsers, exposed for the unit tests and the fuzzer. Neither throws: malformed paragraphs and
// headers are skipped.
std::vector<Package> parse_dpkg_status(const std::string& text);
Package parse_python_metadata(const std::string& text);
std::vector<Package> rocm_packages_from_labels(const nlohmann::json& labels);

nlohmann::json to_json(const Package& p);

}  // namespace rp::inventory
