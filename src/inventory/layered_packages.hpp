#pragma once
// The packages of the image a build makes, each with the layer it comes from, and the distribution
// it is: what `build --sbom` lists. The base's packages are read from its layer blobs once and then
// remembered in the store (a record keyed by the base's layers: the package files, trimmed to what
// is parsed, and each package's layer); the build's own layers are read from their planned entries,
// never from the written blobs. A package's layer is the first layer from which on the image holds
// that version without a break (as trivy attributes packages).
#include <vector>

#include "entries/entry.hpp"
#include "image/image.hpp"
#include "inventory/inventory.hpp"
#include "store/content_store.hpp"

namespace rp::inventory {

struct LayeredPackages {
  std::vector<Package> packages;  // sorted by kind, name, location, arch; `layer` indexes base + new layers
  Distro distro;                  // of the final image
};

// `base`: empty (no layers) for scratch; `new_layers`: the entries of each layer the build adds, in
// order. Throws rp::Error for a corrupt base layer.
LayeredPackages layered_packages(const Image& base, const ContentStore& store,
                                 const std::vector<const std::vector<Entry>*>& new_layers);

}  // namespace rp::inventory
