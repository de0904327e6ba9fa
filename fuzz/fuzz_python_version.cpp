// Fuzzes PEP 440 version and specifier parsing; checks that normalization round-trips.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "python/pep440.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto v = rp::python::Version::try_parse(input)) {
    // The normalized form must parse back to the same version and the same text.
    auto again = rp::python::Version::try_parse(v->to_string());
    if (!again || !(*again == *v) || again->to_string() != v->to_string()) __builtin_trap();
    if ((*v <=> *v) != 0) __builtin_trap();
  }
  try {
    auto set = rp::python::SpecifierSet::parse(input);
    auto reparsed = rp::python::SpecifierSet::parse(set.to_string());
    if (reparsed.to_string() != set.to_string()) __builtin_trap();
    for (const char* probe : {"0", "1.0", "2.10.0a0+rocm7.1", "1!2.post3.dev4", "3.11"}) {
      auto pv = rp::python::Version::parse(probe);
      if (set.contains(pv, true) != reparsed.contains(pv, true)) __builtin_trap();
      (void)set.contains(pv);
    }
  } catch (const rp::InputError&) {
  }
  return 0;
}
