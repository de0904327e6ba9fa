#pragma once
// Registries and CI caches refuse blobs above about 10 GB (Docker Hub, some GitLab and Actions
// caches): a planned layer whose tar would be bigger than the cap is split into several layers
// that unpack, in order, to the same tree.
#include <cstdint>
#include <vector>

#include "plan/plan.hpp"

namespace rp {

// The default cap on a layer's uncompressed size: 10 GB.
constexpr uint64_t kDefaultMaxLayerSize = 10'000'000'000ull;

// The bytes an entry takes in the layer's tar: its 512-byte header and its content padded to 512
// (long names' PAX headers aside: the cap is an upper bound with room to spare).
uint64_t tar_size_of(const Entry& entry);

// Splits `layer` (finalized entries) into parts of at most `cap` tar bytes where it can:
//  - entries stay in path order, cut into consecutive runs, so the split is deterministic;
//  - a hardlink group (a file and every hardlink to it) stays in one part: links cannot cross layers;
//  - each part carries copies of the directory entries above its files (same mode and owner), so
//    no part's directories fall back to a default when unpacked;
//  - whiteouts go into the first part: an opaque directory's marker must not hide the entries of
//    the same layer that an earlier part already wrote;
//  - a file bigger than the cap is a part of its own (it cannot be cut).
// The first part keeps the layer's name; the others get "<name> (part K of N)" in name and history.
std::vector<LayerPlan> split_layer(LayerPlan layer, uint64_t cap);

// split_layer over every layer of `layers`, in place.
void split_oversized_layers(std::vector<LayerPlan>& layers, uint64_t cap);

}  // namespace rp
