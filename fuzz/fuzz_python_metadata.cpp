// Fuzzes the parsers of files found inside wheels (METADATA, WHEEL, entry_points.txt), wheel file
// names and URL resolution; and the closure check of a locked set over a METADATA's Requires-Dist
// (its extras loop must end, whatever the requirements say).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "net/url.hpp"
#include "python/closure.hpp"
#include "python/core_metadata.hpp"
#include "python/entry_points.hpp"
#include "python/wheel_filename.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    auto metadata = rp::python::CoreMetadata::parse(input);
    static const auto env = rp::python::MarkerEnvironment::for_python("3.11", "x86_64");
    // The distribution requires itself and what it names; the set holds it once.
    std::vector<rp::python::LockedDistribution> set = {{metadata.normalized_name(), metadata.version, metadata.requires_dist}};
    (void)rp::python::missing_dependencies(metadata.requires_dist, set, env);
  } catch (const rp::InputError&) {
  }
  try {
    (void)rp::python::WheelInfo::parse(input);
  } catch (const rp::InputError&) {
  }
  try {
    auto eps = rp::python::EntryPoints::parse(input);
    for (const auto& e : eps.console_scripts()) {
      if (e.name.find('/') != std::string::npos || e.name.find("..") != std::string::npos) __builtin_trap();
    }
  } catch (const rp::InputError&) {
  }
  if (auto w = rp::python::WheelFilename::try_parse(input)) {
    static const auto policy = rp::python::TagPolicy::for_target("3.11", "2.35", "x86_64");
    (void)policy.best_priority(*w);
  }
  size_t split = input.find('\n');
  if (split != std::string_view::npos) {
    std::string resolved = rp::net::resolve_url(input.substr(0, split), input.substr(split + 1));
    // Resolving is idempotent once the reference is absolute.
    if (resolved.find(':') != std::string::npos && rp::net::UrlParts::split(resolved).scheme &&
        rp::net::resolve_url("http://x/", resolved) != rp::net::resolve_url("http://y/", resolved)) {
      __builtin_trap();
    }
  }
  return 0;
}
