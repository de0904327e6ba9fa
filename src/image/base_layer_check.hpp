#pragma once
// A base image is checked against its own descriptors before it is built on: every layer blob must
// have the size and digest its manifest says, decompress to the diff_id its config says, and hold
// no member that climbs out of the root ("../" in a path or a hardlink target), which extractors
// disagree on. A layer that passed is recorded in the store (by digest and diff_id), so a warm
// build does not decompress it again.
#include <memory>
#include <string>

#include "image/base_image.hpp"
#include "image/image.hpp"
#include "image/rootfs_view.hpp"
#include "store/content_store.hpp"

namespace rp {

// Throws rp::Error naming `source` and the layer for a size, digest or diff_id mismatch, and
// rp::InputError for a traversal member.
// With `keep`, the check is also the read the recipe's steps look into the base with: each layer it
// has to read (none recorded as checked) is read as RootfsView::read_layer reads it, with the
// contents `keep` asks for kept. Those reads are returned, in layer order, when every layer was read
// so; null otherwise (a warm store, a zstd layer), and a step then reads the base itself.
std::shared_ptr<const BaseLayerReads> verify_base_layers(const Image& image, const ContentStore& store,
                                                         const std::string& source,
                                                         const RootfsView::KeepContent& keep = {});

// One layer: `layer` in `store`, its expected `diff_id`. Returns the read when `keep` is given and
// the layer was read (see above), else null.
std::shared_ptr<const RootfsView::LayerRead> verify_base_layer(const ContentStore& store, const Descriptor& layer,
                                                               const std::string& diff_id, const std::string& what,
                                                               const RootfsView::KeepContent& keep = {});
// The same for a layer known only by `digest` and `size` (tests).
void verify_base_layer(const ContentStore& store, const std::string& digest, int64_t size, const std::string& diff_id,
                       const std::string& what);

}  // namespace rp
