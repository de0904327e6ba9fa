// Fuzzes the readers of what a Debian repository and a base image say about packages: a Packages
// index (apt::parse_packages_index, and apt::PackagesIndexParser fed in pieces, which must agree)
// and dpkg's status file (apt::parse_status_file), then every relationship field of each package
// read (apt::relations_of). Only rp::Error (rp::InputError among them) may come out; the promises of the readers are checked: an index package has a name, a
// Filename inside the repository and a 64-hex-digit SHA256, the status file keeps every stanza.
// Seed it with real indexes: ./fuzz_apt_packages corpus/ /var/lib/dpkg/status
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apt/package_index.hpp"
#include "apt/relation.hpp"
#include "util/error.hpp"

namespace {

void check_relations(const rp::apt::Package& p) {
  const std::pair<const char*, const std::string*> fields[] = {
      {"Depends", &p.depends},     {"Pre-Depends", &p.pre_depends}, {"Recommends", &p.recommends},
      {"Provides", &p.provides},   {"Conflicts", &p.conflicts},     {"Breaks", &p.breaks},
      {"Replaces", &p.replaces}};
  for (const auto& [field, text] : fields) {
    try {
      for (const auto& group : rp::apt::relations_of(p, field, *text)) {
        if (group.empty()) __builtin_trap();
        for (const auto& r : group) {
          if (!rp::apt::is_valid_package_name(r.name)) __builtin_trap();
          (void)r.applies_to("amd64");
          (void)r.version_ok(p.version);
        }
        (void)rp::apt::to_string(group);
      }
    } catch (const rp::Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> whole;
  std::string whole_error;
  try {
    for (const auto& p : rp::apt::parse_packages_index(input, "fuzz Packages", 3)) {
      if (!rp::apt::is_valid_package_name(p.name) || p.version.empty() || p.architecture.empty()) __builtin_trap();
      if (p.filename.empty() || p.filename.front() == '/' || p.filename.find("..") != std::string::npos) __builtin_trap();
      if (p.sha256.size() != 64 || p.origin != 3) __builtin_trap();
      check_relations(p);
      whole.push_back(p.id() + " " + p.version.str());
    }
  } catch (const rp::Error& e) {
    whole_error = e.what();
  }
  // The streaming reader (as the build uses it, fed by the decompressor) in pieces of a size the
  // input chooses must give the same packages, or the same error, as the whole text.
  if (size > 0) {
    const size_t piece = 1 + data[0] % 61;
    std::vector<std::string> pieces;
    std::string pieces_error;
    try {
      rp::apt::PackagesIndexParser parser("fuzz Packages", 3, [&](rp::apt::Package&& p) {
        pieces.push_back(p.id() + " " + p.version.str());
      });
      for (size_t i = 0; i < size; i += piece) parser.feed(input.substr(i, piece));
      parser.finish();
    } catch (const rp::Error& e) {
      pieces_error = e.what();
    }
    if (pieces_error != whole_error || (whole_error.empty() && pieces != whole)) __builtin_trap();
  }
  try {
    auto db = rp::apt::parse_status_file(input, "fuzz status");
    if (db.stanzas.size() != db.stanza_names.size() || db.installed.size() > db.stanzas.size()) __builtin_trap();
    for (const auto& p : db.installed) {
      if (!rp::apt::is_valid_package_name(p.name) || p.status_stanza.empty()) __builtin_trap();
      check_relations(p);
    }
  } catch (const rp::Error&) {
  }
  return 0;
}
