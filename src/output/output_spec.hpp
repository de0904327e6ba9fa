#pragma once
// Where an image goes (or comes from): "oci:DIR[:TAG]" or "docker-archive:FILE[:NAME:TAG]".
#include <string>

namespace rp {

struct ImageLocation {
  enum class Kind { kOciLayout, kDockerArchive };
  Kind kind = Kind::kOciLayout;
  std::string path;
  std::string tag;        // oci: the ref.name; docker-archive: the tag of `name`
  std::string name;       // docker-archive only: the repository name (may contain host:port)

  // Throws InputError with the accepted forms.
  static ImageLocation parse(const std::string& text);
  std::string str() const;
};

}  // namespace rp
