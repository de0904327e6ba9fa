// Fuzzes the reader of a build report read back for `build --compare-to`: a previous image's
// application/vnd.rockpack.report+json referrer (whatever a registry serves) or --compare-report FILE.
// It may throw rp::Error, nothing else, and must not crash; what it accepts renders again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "report/report.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    rp::report::Report r = rp::report::parse_report(text, "fuzz");
    (void)rp::report::to_json_text(r);
    (void)rp::report::to_markdown(r);
  } catch (const rp::Error&) {
  }
  return 0;
}
