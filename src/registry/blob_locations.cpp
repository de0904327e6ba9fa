#include "registry/blob_locations.hpp"

#include <algorithm>

namespace rp::registry {

namespace {
constexpr const char* kKind = "registry-blob-locations";
constexpr size_t kMaxRemembered = 8;  // a few candidates are plenty; the newest first
std::string key(const std::string& registry, const std::string& digest) { return registry + " " + digest; }
}  // namespace

std::vector<std::string> known_repositories(const ContentStore& store, const std::string& registry, const std::string& digest) {
  std::vector<std::string> out;
  auto rec = store.get_record(kKind, key(registry, digest));
  if (!rec || !rec->is_array()) return out;
  for (const auto& r : *rec)
    if (r.is_string()) out.push_back(r.get<std::string>());
  return out;
}

void remember_repository(const ContentStore& store, const std::string& registry, const std::string& digest,
                         const std::string& repository) {
  auto repos = known_repositories(store, registry, digest);
  if (!repos.empty() && repos.front() == repository) return;
  std::erase(repos, repository);
  repos.insert(repos.begin(), repository);
  if (repos.size() > kMaxRemembered) repos.resize(kMaxRemembered);
  try {
    store.put_record(kKind, key(registry, digest), repos);
  } catch (const std::exception&) {
    // Only an optimisation: a store we cannot write to does not fail the push.
  }
}

}  // namespace rp::registry
