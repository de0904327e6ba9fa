#include "python/install_plan.hpp"

#include <algorithm>
#include <map>

#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

const char* kind(const Entry& e) { return e.type == EntryType::kDirectory ? "directory" : "file"; }

std::string sha256_of(const ContentSource& content) {
  HashingSink sink;
  content.write_to(sink);
  return sink.finish_digest();
}

// Same bytes and mode: compare sizes first, and hash only when they agree. Content keys cannot be
// compared: a wheel member's key may name its wheel rather than its bytes.
bool same_file(const Entry& a, const Entry& b) {
  if (a.type != EntryType::kFile || b.type != EntryType::kFile) return false;
  if (a.mode != b.mode || !a.content || !b.content || a.content->size() != b.content->size()) return false;
  return sha256_of(*a.content) == sha256_of(*b.content);
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
