// Fuzzes the PEP 691 JSON page parsers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "python/simple_index.hpp"
#include "util/error.hpp"

// A malformed page is an rp::Error (exit 1: the index is wrong, not the recipe); anything else that
// escapes is a finding.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    (void)rp::python::parse_project_json(input, "https://index.example/simple/pkg/");
  } catch (const rp::Error&) {
  }
  try {
    (void)rp::python::parse_root_index_json(input, "https://index.example/simple/");
  } catch (const rp::Error&) {
  }
  return 0;
}
