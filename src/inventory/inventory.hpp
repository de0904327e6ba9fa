#pragma once
// What an image holds, as a list: its config, its layers and the packages installed in it (Debian
// packages from dpkg's status file and status.d, Python distributions from their .dist-info METADATA
// or .egg-info PKG-INFO, ROCm from the image's org.rockpack.rocm.* labels) and, when asked, every file. The layers are streamed once
// through a RootfsView (metadata of every path, contents of the few files parsed); nothing is
// unpacked to disk. Used by `rockpack diff`, the build report's comparison and the SBOM (layered_packages.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "entries/file_tree.hpp"
#include "image/image.hpp"
#include "image/rootfs_view.hpp"
#include "store/content_store.hpp"
#include "util/package_kind.hpp"

namespace rp::inventory {

struct Package {
  PackageKind kind = PackageKind::kDeb;  // kDeb, kPython or kRocm
  std::string name;
  std::string version;
  std::string arch;     // deb: Architecture; rocm: the GPU families
  std::string source;   // deb: Source (without its version); empty when it is the package itself
  std::string license;  // python: License / License-Expression, when the metadata has one
  std::string location; // python: the .dist-info or .egg-info directory (or .egg-info file)
  int layer = -1;       // the image layer (index) this version first appears in; -1 when not known
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

// The files packages are read from (path relative to the root): dpkg's status and status.d, Python
// metadata, and the files that name the distribution (os-release, debian_version, lsb-release).
bool is_package_file(std::string_view path);
// The Debian and Python packages `tree` holds (sorted by kind, name, location, arch), read from the
// files is_package_file names; nothing from labels.
std::vector<Package> installed_packages(const FileTree& tree);

// The distribution an image is, as scanners name it in purls (pkg:deb/<id>/...?distro=<id>-<version>):
// trivy's choice, so that the SBOM and a scanner agree. Empty fields when the image does not say.
struct Distro {
  std::string id;       // "debian", "ubuntu"
  std::string version;  // "12.5" (Debian: /etc/debian_version), "22.04" (Ubuntu: VERSION_ID)
};
Distro distro_of(const FileTree& tree);

// Each layer of `image` (blobs in `store`) read with the contents of the package files kept, on
// `threads` threads (0: one per core), each verified as it streams; in layer order.
std::vector<std::shared_ptr<const RootfsView::LayerRead>> read_package_files(const Image& image, const ContentStore& store,
                                                                             unsigned threads = 0);

// Parsers, exposed for the unit tests and the fuzzer. None throws: malformed paragraphs and
// headers are skipped. `status_d`: a /var/lib/dpkg/status.d/ file (distroless images), whose
// stanzas have no Status field and count as installed.
std::vector<Package> parse_dpkg_status(const std::string& text, bool status_d = false);
Package parse_python_metadata(const std::string& text);
std::vector<Package> rocm_packages_from_labels(const nlohmann::json& labels);

nlohmann::json to_json(const Package& p);

}  // namespace rp::inventory
