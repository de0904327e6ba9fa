#include "build/image_io.hpp"

#include "output/docker_archive.hpp"
#include "output/oci_archive.hpp"
#include "output/oci_layout.hpp"
#include "reference/reference.hpp"

namespace rp::build {

namespace {

// "app:v1" stays as written for manifest.json; index.json gets the normalized reference
// ("docker.io/library/app:v1"), which is what containerd and podman import it as.
std::vector<ArchiveTag> archive_tags(const ImageLocation& to, const DefaultNames& names) {
  std::vector<std::string> repo_tags;
  if (!to.name.empty()) {
    repo_tags.push_back(to.name + ":" + to.tag);
  } else if (!names.name.empty()) {
    for (const auto& t : names.tags) repo_tags.push_back(names.name + ":" + t);
  }
  std::vector<ArchiveTag> out;
  for (const auto& rt : repo_tags) out.push_back({rt, parse_reference(rt).str()});
  return out;
}

}  // namespace

void write_image(const SealedImage& image, const ContentStore& store, const ImageLocation& to,
                 const DefaultNames& names, int64_t mtime) {
  std::vector<std::string> tags = to.tag.empty() ? names.tags : std::vector<std::string>{to.tag};
  switch (to.kind) {
    case ImageLocation::Kind::kOciLayout:
      write_oci_layout(image, store, to.path, tags);
      break;
    case ImageLocation::Kind::kOciArchive:
      write_oci_archive(image, store, to.path, tags, mtime);
      break;
    case ImageLocation::Kind::kDockerArchive:
      write_docker_archive(image, store, to.path, archive_tags(to, names), mtime);
      break;
  }
}

}  // namespace rp::build
