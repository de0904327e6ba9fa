#pragma once
// Where an image goes (or comes from): "oci:DIR[:TAG]", "oci-archive:FILE[:TAG]" (an OCI layout in
// one tar, as skopeo and podman write it) or "docker-archive:FILE[:NAME:TAG]".
#include <string>

namespace rp {

struct ImageLocation {
  enum class Kind { kOciLayout, kDockerArchive, kOciArchive };
  Kind kind = Kind::kOciLayout;
  std::string path;
  std::string tag;        // oci:, oci-archive: the ref.name; docker-archive: the tag of `name`
  std::string name;       // docker-archive only: the repository name (may contain host:port)

  // Throws InputError with the accepted forms.
  static ImageLocation parse(const std::string& text);
  // True when `text` names one of these transports (and not, say, a registry reference).
  static bool is_local(const std::string& text);
  std::string str() const;
};

}  // namespace rp
