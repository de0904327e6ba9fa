#pragma once
// TheRock's `rocm` sdist computes its requirements in setup.py from src/rocm_sdk/_dist_info.py. The
// index build appends plain assignments to that module (__version__, DEFAULT_TARGET_FAMILY,
// AVAILABLE_TARGET_FAMILIES.append(...), ALL_PACKAGES[...].<field> = ...), and its body declares
// the package templates as PackageEntry(...) calls. This reads those statements without running
// Python and computes what setup.py would declare as Requires-Dist for a choice of targets and
// extras. Anything else in the module is ignored.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "python/pep508.hpp"

namespace rp::therock {

// Per-family indexes publish rocm-sdk-libraries-<family>; multi-arch indexes publish one
// arch-neutral rocm-sdk-libraries plus rocm-sdk-device-<gfx> per target.
enum class IndexLayout { kPerFamily, kMultiArch };

struct PackageTemplate {
  std::string logical_name;         // "libraries"
  std::string dist_template;        // "rocm-sdk-libraries-{target_family}"
  std::string py_package_template;  // "_rocm_sdk_libraries_{target_family}"; may be empty
  bool required = false;            // a hard requirement of `rocm` (core), not an extra
  bool target_specific = false;
};

struct DistInfo {
  std::string version;                          // __version__
  std::string default_family;                   // DEFAULT_TARGET_FAMILY; may be empty
  // AVAILABLE_TARGET_FAMILIES, in order, no duplicates: family names on per-family indexes, GPU
  // targets on multi-arch ones (possibly with a feature suffix such as "gfx90a:xnack-").
  std::vector<std::string> available_families;
  // LINUX_TARGET_FAMILIES / WINDOWS_TARGET_FAMILIES: a target on one list only gets its device
  // requirement under that platform's marker. Empty when the module does not say.
  std::vector<std::string> linux_families;
  std::vector<std::string> windows_families;
  std::map<std::string, PackageTemplate> packages;  // by logical name
};

// Reads the statements above from the text of _dist_info.py; later assignments win, as in Python.
// `origin` names the file in messages. Throws rp::InputError for text that cannot be tokenized
// (an unterminated string), a missing or invalid __version__, an ALL_PACKAGES[...] assignment to
// a package the module never declared, or text over 1 MiB.
DistInfo parse_dist_info(std::string_view text, std::string_view origin = "_dist_info.py");

// Multi-arch when the libraries template no longer depends on the family.
IndexLayout layout_of(const DistInfo& info);

// "per-family" or "multi-arch": the layout as labels, records and docs name it.
const char* layout_name(IndexLayout layout);

// Multi-arch: the base GPU targets this release has device packages for on Linux (feature suffixes
// stripped, Windows-only targets left out), in the module's order. Per-family: the targets of its
// families (TheRock's table).
std::vector<std::string> release_targets(const DistInfo& info, IndexLayout layout);

// Checks `targets` (parse_targets' output; "all" stands for every target) against the release:
// throws rp::InputError naming the first unknown target and listing the release's targets.
void check_targets(const DistInfo& info, const std::vector<std::string>& targets, IndexLayout layout);

// The extras `rocm` offers on this index: libraries, devel, profiler, device; on multi-arch also
// device-all and device-<gfx> for the targets of the available families.
std::vector<std::string> known_extras(const DistInfo& info, IndexLayout layout);

// The Requires-Dist setup.py would compute for `targets` (GPU targets such as "gfx942", already
// checked by parse_targets) and `extras` (libraries, devel, profiler, device, device-<gfx>,
// device-all), each pinned ==version: first the required packages (rocm-sdk-core), then per extra
// in the order given: per-family `libraries` -> rocm-sdk-libraries-<family> for every family of the
// targets; multi-arch `libraries` -> rocm-sdk-libraries (arch neutral), `device` ->
// rocm-sdk-device-<DEFAULT_TARGET_FAMILY> (what setup.py picks without a GPU), `device-<t>` and
// `device-all` as setup.py declares them; `devel` -> rocm-sdk-devel; `profiler` -> rocm-profiler.
// Duplicates are dropped. Throws
// rp::InputError for an unknown extra (listing the known ones), or a family the index does not
// publish (listing those it does).
std::vector<python::Requirement> requirements_for(const DistInfo& info, const std::vector<std::string>& targets,
                                                  const std::vector<std::string>& extras, IndexLayout layout);

}  // namespace rp::therock
