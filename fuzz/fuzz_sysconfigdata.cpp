// Fuzzes the _sysconfigdata parser (image files are untrusted) and the image-facts readers that
// scan other text of an image: they must return or throw InputError, never crash or hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "python/image_facts.hpp"
#include "python/sysconfigdata.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    auto vars = rp::python::parse_sysconfigdata(input, "fuzz.py");
    for (const auto& [name, value] : vars.values) {
      (void)vars.get_int(name);
      (void)value;
    }
  } catch (const rp::InputError&) {
  }
  (void)rp::python::version_from_patchlevel(input);
  (void)rp::python::version_from_dpkg_status(input, 3, 11);
  (void)rp::python::version_from_apk_installed(input, 3, 11);
  (void)rp::python::glibc_version_from_library(input);
  return 0;
}
