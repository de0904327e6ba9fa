#pragma once
// The apt step's resolution part: the section's requests (patterns expanded, usr-is-merged on a
// scratch base) resolved against the verified indexes on top of the base's dpkg status, with apt's
// pins (each release's default priority and the base's /etc/apt/preferences(.d)).
//
// The result is a function of the verified indexes, the requests, the options and the base's
// status, so it is kept in the store under a key made of those: a warm build reads no index at all.
#include <string>

#include "apt/package_index.hpp"
#include "apt/resolver.hpp"
#include "entries/file_tree.hpp"
#include "plan/apt_indexes.hpp"
#include "recipe/model.hpp"
#include "store/content_store.hpp"

namespace rp {

struct AptResolutionInputs {
  const recipe::AptSection* section = nullptr;
  std::string architecture;
  const apt::InstalledDatabase* installed = nullptr;  // the base's dpkg status, parsed
  std::string status_text;                            // ... and as read (its digest keys the cache)
  bool merged_usr = false;                            // the scratch base gets merged-/usr links
};

// The resolution, from the store when it was made before with the same inputs; otherwise the
// indexes are parsed, resolved (their packages dropped afterwards, for memory) and the result kept.
// Warnings about the base's preferences are logged.
apt::Resolution resolve_apt_cached(const AptResolutionInputs& inputs, AptIndexes& indexes, const FileTree& base,
                                   ContentStore& store);

}  // namespace rp
