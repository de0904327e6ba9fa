#pragma once
// Writing an image to any local destination (oci:, oci-archive:, docker-archive:): what `build -o`,
// `pull` and `push` to a local destination share, so each transport behaves the same everywhere.
#include <string>
#include <vector>

#include "image/image.hpp"
#include "output/output_spec.hpp"
#include "store/content_store.hpp"

namespace rp::build {

// Which names the image gets when the destination does not say: `tags` under `name` (a docker
// archive tags "name:tag"; layouts and oci archives use the tags alone). Both may be empty.
struct DefaultNames {
  std::string name;
  std::vector<std::string> tags;
};

// Writes `image` (its layers are in `store`) to `to`. `mtime` is the time stamp of tar members.
void write_image(const SealedImage& image, const ContentStore& store, const ImageLocation& to,
                 const DefaultNames& names, int64_t mtime);

}  // namespace rp::build
