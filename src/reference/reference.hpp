#pragma once
// Image references as docker spells them: [registry/]repository[:tag][@sha256:digest].
// The rules are docker's so that a reference means the same thing to rockpack as to every other client:
// the first component is a registry only if it looks like a host (has '.' or ':' or is "localhost"),
// otherwise the image lives on Docker Hub, where one-component names are under "library/".
#include <string>
#include <string_view>

namespace rp {

inline constexpr const char* kDockerHub = "docker.io";
inline constexpr const char* kDockerHubApiHost = "registry-1.docker.io";
inline constexpr const char* kDefaultTag = "latest";

struct Reference {
  std::string registry;    // "docker.io", "ghcr.io", "localhost:5000"
  std::string repository;  // "library/alpine", "team/app"
  std::string tag;         // empty when none was written
  std::string digest;      // "sha256:<hex>" or empty

  // registry/repository, e.g. "docker.io/library/alpine".
  std::string name() const;
  // The canonical, fully qualified form: name[:tag][@digest] (":latest" filled in when neither is set).
  std::string str() const;
  // What goes after /manifests/ in the API: the digest when there is one (it wins over the tag),
  // else the tag, else "latest".
  std::string identifier() const;
  // The host the API is spoken to: Docker Hub's API lives on registry-1.docker.io.
  std::string api_host() const;
  bool has_tag() const { return !tag.empty(); }
  bool has_digest() const { return !digest.empty(); }

  Reference with_tag(std::string t) const;
  Reference with_digest(std::string d) const;
};

// Parses a reference; throws rp::InputError naming the problem (uppercase letters, bad tag, bad digest...).
Reference parse_reference(std::string_view text);

bool is_valid_tag(std::string_view tag);
bool is_valid_repository(std::string_view repository);
// True for localhost, 127.0.0.0/8 and ::1 (with or without a port): the only hosts spoken to in plain
// HTTP without being asked.
bool is_loopback_host(std::string_view host_and_port);

}  // namespace rp
