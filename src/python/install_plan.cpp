#include "python/install_plan.hpp"

#include <algorithm>
#include <map>

#include "util/error.hpp"

namespace rp::python {

namespace {

const char* kind(const Entry& e) { return e.type == EntryType::kDirectory ? "directory" : "file"; }

// Same bytes and mode: compare sizes first, and hash only when they agree.
bool same_file(const Entry& a, const Entry& b) {
  if (a.type != EntryType::kFile || b.type != EntryType::kFile) return false;
  if (a.mode != b.mode || !a.content || !b.content || a.content->size() != b.content->size()) return false;
  return a.content->content_key() == b.content->content_key();
}

}  // namespace

std::vector<Entry> merge_installed_wheels(const std::vector<InstalledWheel>& wheels) {
  std::map<std::string, size_t> index;  // path -> position in `out`
  std::vector<Entry> out;
  for (const auto& wheel : wheels) {
    for (const auto& entry : wheel.entries) {
      auto [it, inserted] = index.emplace(entry.path, out.size());
      if (inserted) {
        out.push_back(entry);
        continue;
      }
      const Entry& existing = out[it->second];
      if (existing.type == EntryType::kDirectory && entry.type == EntryType::kDirectory) continue;
      if (same_file(existing, entry)) continue;
      throw InputError("/" + entry.path + " is installed by both " + existing.origin + " (as a " + kind(existing) +
                           ") and " + entry.origin + " (as a " + kind(entry) + ")",
                       "two packages claim the same file; install only one of them or pick compatible versions");
    }
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });
  return out;
}

}  // namespace rp::python
