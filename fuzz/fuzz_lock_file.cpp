// Fuzzes the lock file parser (a lock file is untrusted input: it names the URLs a build fetches)
// and checks its round-trip promise: a lock that parses, written back, parses to the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "plan/lock_file.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    rp::LockFile lock = rp::parse_lock_file(input, "fuzz.lock");
    std::string text = rp::lock_file_text(lock);
    if (rp::lock_file_text(rp::parse_lock_file(text, "again")) != text) __builtin_trap();
  } catch (const rp::Error&) {
  }
  return 0;
}
