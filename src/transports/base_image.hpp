#pragma once
// Resolving a recipe's `base:` to exact content in the store: a registry reference is pulled for the
// recipe's platform; `oci:DIR[:TAG]`, `oci-archive:FILE[:TAG]` and `docker-archive:FILE` are imported
// from the file system (load_image decides which).
#include <string>

#include "image/base_image.hpp"
#include "image/rootfs_view.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"
#include "util/platform.hpp"

namespace rp::transports {

// Starts the base's check (BaseImage::verified) on a thread of its own; `keep` names the files the
// recipe's steps will look at, so that the check's read of each layer serves them too.
BaseImage resolve_base(const std::string& base, const Platform& platform, ContentStore& store, registry::Session& session,
                       const RootfsView::KeepContent& keep = {});

}  // namespace rp::transports
