// Fuzzes the license readers the SBOM takes from untrusted files: SPDX expressions (a wheel's
// License-Expression / License), a wheel METADATA's license fields and classifiers, and a .deb's
// /usr/share/doc/<pkg>/copyright (DEP-5). Checks: nothing throws; an expression that is
// recognized is normalized (recognizing it again gives the same text); whatever the readers return
// as an expression is one.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "apt/copyright.hpp"
#include "python/email_headers.hpp"
#include "python/license.hpp"
#include "util/spdx_license.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto check = [](const rp::DeclaredLicense& l) {
    if (!l.expression.empty() && rp::spdx_expression(l.expression) != l.expression) __builtin_trap();
    if (l.text.find('\n') != std::string::npos) __builtin_trap();
  };
  if (auto e = rp::spdx_expression(input)) {
    if (rp::spdx_expression(*e) != *e) __builtin_trap();
  }
  check(rp::python::declared_license(rp::python::EmailHeaders::parse(input)));
  check(rp::apt::dep5_license(input));
  return 0;
}
