// Fuzzes the deb822 reader (dpkg status, control files, Packages, Release, apt .sources) in both
// modes, and checks its round-trip promise: a stanza written back with str() reads the same.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/deb822.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (bool strict : {true, false}) {
    rp::Deb822Options options;
    options.strict = strict;
    options.comments = !strict;
    try {
      for (const auto& stanza : rp::parse_deb822(input, "fuzz", options)) {
        if (!strict) continue;
        auto again = rp::parse_deb822(stanza.str(), "again");
        if (again.size() != 1 || again[0].str() != stanza.str()) __builtin_trap();
      }
    } catch (const rp::Error&) {
    }
  }
  return 0;
}
