#pragma once
// The image a recipe builds on, resolved to exact content: what registry::resolve_base returns and
// the plan starts from. Here, below both, so the registry needs nothing of the plan stage.
#include <future>
#include <string>

#include "image/image.hpp"

namespace rp {

// The image a recipe builds on (anything but scratch), already resolved to exact content.
struct BaseImage {
  Image image;         // its layers are reused as they are; its config is the starting point
  std::string name;    // as resolved: "docker.io/library/alpine:3.19", "oci:DIR:TAG"
  std::string digest;  // its manifest digest (empty for a docker archive, which has no manifest)
  // The check of every layer against its descriptors (output/base_layer_check.hpp). It reads each
  // layer whole, which nothing in planning needs, so it runs beside planning; get() rethrows its
  // error. Invalid (nothing to wait for) for an image made in memory.
  std::shared_future<void> verified;
};

}  // namespace rp
