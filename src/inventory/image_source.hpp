#pragma once
// Any image a user can name — a registry reference, oci:DIR[:TAG], oci-archive:FILE[:TAG],
// docker-archive:FILE — brought into the content store (every blob verified) as an Image.
#include <string>

#include "image/image.hpp"
#include "util/platform.hpp"
#include "registry/options.hpp"
#include "store/content_store.hpp"

namespace rp::inventory {

struct SourcedImage {
  Image image;
  std::string manifest_digest;  // empty for a legacy docker archive
};

SourcedImage load_image(const std::string& location, const Platform& platform, ContentStore& store,
                        const registry::RegistryOptions& options);

}  // namespace rp::inventory
