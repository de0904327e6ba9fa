// Fuzzes the inventory's parsers of files found inside images: dpkg's status file and a .dist-info
// METADATA, as `rockpack diff` reads them from any image. Neither may throw or crash. And the
// escaping of what diff and inspect print from an image (terminal_safe): no control byte may
// survive it, whatever the input.
#include <cstddef>
#include <cstdint>
#include <string>

#include "inventory/inventory.hpp"
#include "util/strings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)rp::inventory::parse_dpkg_status(text);
  (void)rp::inventory::parse_python_metadata(text);
  std::string shown = rp::terminal_safe(text);
  for (size_t i = 0; i < shown.size(); ++i) {
    auto c = static_cast<unsigned char>(shown[i]);
    if (c < 0x20 || c == 0x7f) __builtin_trap();
    if (c == 0xc2 && i + 1 < shown.size() && static_cast<unsigned char>(shown[i + 1]) < 0xa0) __builtin_trap();  // C1
  }
  return 0;
}
