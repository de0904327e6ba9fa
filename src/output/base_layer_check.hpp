#pragma once
// A base image is checked against its own descriptors before it is built on: every layer blob must
// have the size and digest its manifest says, decompress to the diff_id its config says, and hold
// no member that climbs out of the root ("../" in a path or a hardlink target), which extractors
// disagree on. A layer that passed is recorded in the store (by digest and diff_id), so a warm
// build does not decompress it again.
#include <string>

#include "image/image.hpp"
#include "store/content_store.hpp"

namespace rp {

// Throws rp::Error naming `source` and the layer for a size, digest or diff_id mismatch, and
// rp::InputError for a traversal member.
void verify_base_layers(const Image& image, const ContentStore& store, const std::string& source);

// One layer (exposed for tests): `digest` in `store`, expected `size` and `diff_id`.
void verify_base_layer(const ContentStore& store, const std::string& digest, int64_t size, const std::string& diff_id,
                       const std::string& what);

}  // namespace rp
