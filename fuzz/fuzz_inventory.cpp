// Fuzzes the inventory's parsers of files found inside images: dpkg's status file (and a status.d
// stanza), a .dist-info METADATA, and the files that name the distribution (os-release,
// debian_version, lsb-release), as `rockpack diff` and `build --sbom` read them from any image. None
// may throw or crash. And the escaping of what diff and inspect print from an image
// (terminal_safe): no control byte may survive it, whatever the input.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "image/rootfs_view.hpp"
#include "inventory/inventory.hpp"
#include "util/strings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)rp::inventory::parse_dpkg_status(text);
  (void)rp::inventory::parse_dpkg_status(text, /*status_d=*/true);
  (void)rp::inventory::parse_python_metadata(text);
  std::string shown = rp::terminal_safe(text);
  for (size_t i = 0; i < shown.size(); ++i) {
    auto c = static_cast<unsigned char>(shown[i]);
    if (c < 0x20 || c == 0x7f) __builtin_trap();
    if (c == 0xc2 && i + 1 < shown.size() && static_cast<unsigned char>(shown[i + 1]) < 0xa0) __builtin_trap();  // C1
  }
  rp::RootfsView view;
  std::vector<rp::Entry> entries;
  for (const char* path : {"etc/os-release", "etc/debian_version", "etc/lsb-release"}) {
    rp::Entry e;
    e.path = path;
    e.content = std::make_shared<rp::InlineContent>(text);
    entries.push_back(std::move(e));
  }
  view.add_entries(entries);
  (void)rp::inventory::distro_of(view);
  return 0;
}
