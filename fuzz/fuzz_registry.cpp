// Fuzzes what rockpack reads from registries and credential files: WWW-Authenticate challenges,
// error bodies, upload Range and Retry-After headers, image references, base64 config entries.
#include <cstdint>
#include <string>

#include "util/base64.hpp"
#include "registry/blob_upload.hpp"
#include "registry/challenge.hpp"
#include "registry/errors.hpp"
#include "reference/reference.hpp"
#include "net/retry.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)rp::registry::parse_challenges(text);
  (void)rp::registry::parse_error_body(text);
  (void)rp::registry::parse_upload_range(text);
  (void)rp::net::parse_retry_after(text);
  (void)rp::base64_decode(text);
  try {
    rp::Reference r = rp::parse_reference(text);
    (void)r.str();
    (void)rp::parse_reference(r.str());  // the canonical form parses again
  } catch (const rp::InputError&) {
  }
  return 0;
}
