#pragma once
// Which repositories of a registry are known to hold a blob, remembered in a ContentStore record
// after every push and pull. A later push of the same blob to another repository of that registry
// can then ask for a cross-repository mount instead of sending the bytes again.
#include <string>
#include <vector>

#include "store/content_store.hpp"

namespace rp::registry {

std::vector<std::string> known_repositories(const ContentStore& store, const std::string& registry, const std::string& digest);
void remember_repository(const ContentStore& store, const std::string& registry, const std::string& digest,
                         const std::string& repository);

}  // namespace rp::registry
