// Fuzzes PEP 508 requirement and marker parsing and evaluation; checks the canonical text round-trips.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "python/pep508.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  rp::python::MarkerEnvironment env;
  try {
    auto r = rp::python::Requirement::parse(input);
    std::string text = r.to_string();
    auto again = rp::python::Requirement::parse(text);
    if (again.to_string() != text) __builtin_trap();
    (void)r.applies(env, {"test", "rocm"});
    if (r.applies(env) != again.applies(env)) __builtin_trap();
  } catch (const rp::InputError&) {
  }
  try {
    auto m = rp::python::Marker::parse(input);
    auto again = rp::python::Marker::parse(m.to_string());
    if (m.evaluate(env, {"x"}) != again.evaluate(env, {"x"})) __builtin_trap();
  } catch (const rp::InputError&) {
  }
  return 0;
}
