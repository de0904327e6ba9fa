#include "python/install_plan.hpp"

#include <algorithm>
#include <cstdint>

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

// Every entry of `wheels`, sorted by path; among entries of one path, in wheel order. Each run of
// one path is checked: what follows its first entry must be the same directory or the same file.
struct EntriesByPath {
  struct Slot {
    uint32_t wheel, entry;
  };
  std::vector<Slot> slots;

  explicit EntriesByPath(const std::vector<InstalledWheel>& wheels) {
    for (size_t w = 0; w < wheels.size(); ++w)
      for (size_t e = 0; e < wheels[w].entries.size(); ++e)
        slots.push_back({static_cast<uint32_t>(w), static_cast<uint32_t>(e)});
    std::stable_sort(slots.begin(), slots.end(), [&](const Slot& a, const Slot& b) {
      return wheels[a.wheel].entries[a.entry].path < wheels[b.wheel].entries[b.entry].path;
    });
    for (size_t i = 0, first = 0; i < slots.size(); ++i) {
      const Entry& entry = wheels[slots[i].wheel].entries[slots[i].entry];
      const Entry& head = wheels[slots[first].wheel].entries[slots[first].entry];
      if (i == first || entry.path != head.path) {
        first = i;
        continue;
      }
      if (head.type == EntryType::kDirectory && entry.type == EntryType::kDirectory) continue;
      if (same_file(head, entry)) continue;
      throw InputError("/" + entry.path + " is installed by both " + head.origin + " (as a " + kind(head) + ") and " +
                           entry.origin + " (as a " + kind(entry) + ")",
                       "two packages claim the same file; install only one of them or pick compatible versions");
    }
  }
};

}  // namespace

void check_wheels_fit_together(const std::vector<InstalledWheel>& wheels) { (void)EntriesByPath(wheels); }

std::vector<Entry> merge_installed_wheels(std::vector<InstalledWheel> wheels) {
  EntriesByPath sorted(wheels);
  std::vector<Entry> out;
  out.reserve(sorted.slots.size());
  for (const auto& slot : sorted.slots) {
    Entry& entry = wheels[slot.wheel].entries[slot.entry];
    if (!out.empty() && out.back().path == entry.path) continue;  // checked: the same as the one kept
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace rp::python
