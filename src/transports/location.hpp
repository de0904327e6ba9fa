#pragma once
// The one place that decides which transport an image location names, the way every command
// reads it: `oci:DIR[:TAG]`, `oci-archive:FILE[:TAG]` and `docker-archive:FILE[:NAME:TAG]` are files
// (output/), anything else is a registry reference, with or without `docker://` (registry/).
#include <optional>
#include <string>

#include "output/output_spec.hpp"
#include "reference/reference.hpp"

namespace rp::transports {

struct AnyLocation {
  std::optional<ImageLocation> local;  // set for the file transports
  Reference remote;                    // set (and used) only when `local` is not

  bool is_local() const { return local.has_value(); }
  // The canonical spelling: the file transport's form, or the fully qualified reference.
  std::string str() const;
  // The same image pinned to `digest`: a registry reference becomes name@digest (the tag may move
  // while rockpack works); a file location is returned as it is (its content is what the file holds).
  AnyLocation pinned(const std::string& digest) const;
};

// Throws rp::InputError naming the problem and the accepted forms.
AnyLocation parse_location(const std::string& text);

}  // namespace rp::transports
