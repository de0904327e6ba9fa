// Fuzzes the inventory's parsers of files found inside images: dpkg's status file and a .dist-info
// METADATA, as `rockpack diff` reads them from any image. Neither may throw or crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "inventory/inventory.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)rp::inventory::parse_dpkg_status(text);
  (void)rp::inventory::parse_python_metadata(text);
  return 0;
}
