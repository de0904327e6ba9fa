// Fuzzes the reading of a repository's Release file (apt::parse_release), the choice of the Packages
// index to fetch (apt::packages_index, apt::index_fetch_path), the date checks, the RFC 2822 date
// reader (apt::parse_release_date, which must read back what format_release_date writes) and the
// cleartext of an InRelease taken without verification (apt::unverified_cleartext, for sources marked
// trusted). Only rp::Error may come out.
// Seed it with real files: ./fuzz_apt_release corpus/ /var/lib/apt/lists/
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "apt/release.hpp"
#include "apt/signature.hpp"
#include "util/error.hpp"

namespace {

void check_date(std::string_view text) {
  auto t = rp::apt::parse_release_date(text);
  if (!t) return;
  // What the writer makes of a date must read back as the same instant (when it reads at all: a
  // year past 9999 or before 0 after the zone offset is not written in four digits).
  auto again = rp::apt::parse_release_date(rp::apt::format_release_date(*t));
  if (again && *again != *t) __builtin_trap();
}

void check_release(std::string_view text) {
  try {
    rp::apt::Release r = rp::apt::parse_release(text, "fuzz Release");
    for (const auto& [path, file] : r.files) {
      if (path != file.path || file.sha256.size() != 64) __builtin_trap();
      (void)rp::apt::index_fetch_path(r, file);
    }
    std::vector<std::string> components = r.components;
    components.push_back("");  // flat
    for (const auto& c : components)
      for (const auto& arch : r.architectures) {
        auto index = rp::apt::packages_index(r, c, arch);
        if (index && !r.find(index->path)) __builtin_trap();
      }
    try {
      rp::apt::check_release_dates(r, 1700000000, "fuzz Release");
    } catch (const rp::Error&) {
      if (!r.valid_until) __builtin_trap();
    }
  } catch (const rp::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check_release(input);
  check_date(input.substr(0, input.find('\n')));
  try {
    std::string text = rp::apt::unverified_cleartext(input, "fuzz InRelease");
    if (text.size() > input.size()) __builtin_trap();
    check_release(text);
  } catch (const rp::Error&) {
  }
  return 0;
}
