#pragma once
// A relocatable CPython (python-build-standalone's `install_only` archives: one top directory
// `python/` with bin/, lib/, include/) placed at a prefix of the image, straight from the archive.
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "entries/member_archive.hpp"

namespace rp::python {

// The archive's members under `strip`/ as entries under `prefix` (absolute, "/opt/python"), file
// contents streamed from `archive` (the verified download, indexed by the caller); `archive_name`
// names it in messages. Symlinks are kept as written; hardlinks are moved under the prefix with
// their targets. Members outside `strip`/, with ".." or absolute paths, or hardlinks to outside
// `strip`/ are an rp::InputError. The archive's contents must outlive the entries.
std::vector<Entry> standalone_entries(const MemberArchive& archive, const std::string& archive_name,
                                      const std::string& prefix,
                                      const std::string& strip, const std::string& origin);

}  // namespace rp::python
