#pragma once
// Tags that follow a family of images (`rockpack publish`): whether a tag is in a repository, and a
// tag moved onto a manifest that is already there (the manifest's bytes put under the new tag; no
// blob moves, the digest stays the same).
#include <optional>
#include <string>

#include "registry/manifest_fetch.hpp"
#include "registry/transport.hpp"

namespace rp::registry {

// The manifest `identifier` (a tag or digest) names in `repository`, or nullopt when the registry
// says it has none (404). Any other failure throws.
std::optional<FetchedManifest> find_manifest(Transport& transport, const std::string& repository,
                                             const std::string& identifier);

// PUT the manifest's own bytes under `tag`: the tag now names that manifest's digest.
void put_tag(Transport& transport, const std::string& repository, const std::string& tag, const FetchedManifest& manifest);

}  // namespace rp::registry
