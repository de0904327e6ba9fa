// Fuzzes the tar index of downloaded archives and base layers (index_plain_tar: our own reader of
// ustar, PAX and GNU headers, whose offsets later drive reads straight out of the store blob) and the
// cached index record read back from the store (TarIndex::parse). The bytes are written to a
// file, as the indexer reads a plain tar blob. Only rp::Error may come out. Checked: every file's
// data lies inside the file, names are not empty, and the record written for an index reads back as
// the same index.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "entries/tar_index.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "fuzz_scratch.hpp"

namespace {

bool same_member(const rp::TarIndexMember& a, const rp::TarIndexMember& b) {
  return a.path == b.path && a.type == b.type && a.mode == b.mode && a.size == b.size && a.offset == b.offset &&
         a.link_target == b.link_target && a.uid == b.uid && a.gid == b.gid && a.uname == b.uname &&
         a.gname == b.gname;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = fuzz_scratch_dir() + "/input.tar";
  std::string_view input(reinterpret_cast<const char*>(data), size);
  write_scratch_file(path, input);
  try {
    rp::TarIndex index;
    index.tar_digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    index.members = rp::index_plain_tar(path, "fuzz.tar");
    for (const auto& m : index.members) {
      if (m.path.empty()) __builtin_trap();
      if (m.offset > size || m.size > size - m.offset) __builtin_trap();
      if (m.type != rp::EntryType::kFile && (m.size != 0 || m.offset != 0)) __builtin_trap();
    }
    rp::TarIndex again = rp::TarIndex::parse(index.serialize());
    if (again.tar_digest != index.tar_digest || again.members.size() != index.members.size()) __builtin_trap();
    for (size_t i = 0; i < again.members.size(); ++i)
      if (!same_member(again.members[i], index.members[i])) __builtin_trap();
  } catch (const rp::Error&) {
  }
  // The same bytes as a stored index record (a damaged store must not crash a build).
  try {
    rp::TarIndex parsed = rp::TarIndex::parse(input);
    // What parses is what serialize writes: the same bytes again.
    if (parsed.serialize() != input) __builtin_trap();
  } catch (const rp::Error&) {
  }
  return 0;
}
