// Fuzzes the PEP 503 HTML page parsers (hostile index pages must never crash or hang).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "python/simple_index.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    auto page = rp::python::parse_project_html(input, "https://index.example/simple/pkg/");
    for (const auto& f : page.files) {
      if (f.url.find('#') != std::string::npos) __builtin_trap();
      if (f.sha256 && f.sha256->size() != 64) __builtin_trap();
    }
    (void)rp::python::parse_root_index_html(input, "https://index.example/simple/");
  } catch (const rp::InputError&) {
    // Only a repository-version above 1 may be rejected.
  }
  return 0;
}
