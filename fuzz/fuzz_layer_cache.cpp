// Fuzzes the registry layer cache as --cache-from reads it (registry/layer_cache_document.hpp): the
// artifact manifest and its config blob. Only rp::Error may come out; a config that parses writes
// back (layer_cache_config) to bytes that parse to the same entries.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "registry/layer_cache_document.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)rp::registry::parse_layer_cache_manifest(text);
  } catch (const rp::Error&) {
  }
  try {
    auto entries = rp::registry::parse_layer_cache_config(text);
    auto again = rp::registry::parse_layer_cache_config(rp::registry::layer_cache_config(entries));
    if (again.size() != entries.size()) std::abort();
    for (size_t i = 0; i < entries.size(); ++i)
      if (again[i].key != entries[i].key || again[i].layer.blob.digest != entries[i].layer.blob.digest ||
          again[i].layer.diff_id != entries[i].layer.diff_id || again[i].layer.blob.size != entries[i].layer.blob.size)
        std::abort();
  } catch (const rp::Error&) {
  }
  return 0;
}
