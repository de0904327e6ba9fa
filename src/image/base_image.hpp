#pragma once
// The image a recipe builds on, resolved to exact content: what transports::resolve_base returns and
// the plan starts from. Here, below both, so the registry needs nothing of the plan stage.
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "image/image.hpp"
#include "image/rootfs_view.hpp"

namespace rp {

// The base's layers as one read left them (RootfsView::read_layer), in layer order: the check of the
// base and the steps that look into it (the interpreter, /etc/bash.bashrc, dpkg's database) share
// that read instead of each decompressing the base again.
using BaseLayerReads = std::vector<std::shared_ptr<const RootfsView::LayerRead>>;

// The image a recipe builds on (anything but scratch), already resolved to exact content.
struct BaseImage {
  Image image;         // its layers are reused as they are; its config is the starting point
  std::string name;    // as resolved: "docker.io/library/alpine:3.19", "oci:DIR:TAG"
  std::string digest;  // its manifest digest (empty for a docker archive, which has no manifest)
  // The check of every layer against its descriptors (image/base_layer_check.hpp), on a thread of
  // its own beside planning; get() rethrows its error. When it had to read every layer (a cold
  // store), it also holds the read, with the contents of the files the recipe's steps look at (null
  // otherwise: a step then reads the base itself). Invalid (nothing to wait for) for an image made
  // in memory.
  std::shared_future<std::shared_ptr<const BaseLayerReads>> verified;
};

}  // namespace rp
