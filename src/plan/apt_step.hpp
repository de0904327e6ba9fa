#pragma once
// The recipe's `apt:` section, planned: Debian packages installed natively (docs/apt.md). The Debian
// knowledge lives in src/apt/; plan_apt strings it together in the order a build needs, one named
// part each:
//
//   sources (the base image's, then the recipe's) and keyrings -> verified indexes (apt_indexes)
//   -> resolution against the base's dpkg status, cached (apt_resolution) -> records -> downloads
//   (parallel, sha256 from the index) and .deb preparation: each data.tar decompressed once into
//   the store and indexed, cached by the .deb's digest (apt_debs) -> install: the installer maps
//   members onto the image (merged /usr, owners, Replaces) -> licenses -> scripts: run in the
//   sandbox, or their native effects (apt_scripts) -> the dpkg database -> layers.
//
// No byte is unpacked on disk: every file of a package streams from the plain data.tar in the store
// into the layer writer.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/step.hpp"

namespace rp {

struct AptPackageRecord {
  ResolvedComponent component;  // kind kDeb; origin = the source
  std::string architecture;
  std::string source_package;
  std::string source_version;
  bool requested = false;
  std::vector<std::string> required_by;
};

// What the apt section resolved; to_json() is the "apt" object of `--resolved` (docs/apt.md).
struct AptRecord final : StepRecord {
  struct Source {
    std::string description;  // "http://host/debian bookworm/main"
    std::string signed_by;    // key fingerprint; "" when trusted without verification
  };
  std::vector<Source> sources;
  std::vector<AptPackageRecord> packages;      // in install order
  std::vector<std::string> already_installed;  // requests the base satisfied
  std::string scripts;                         // "native" or "run" (apt: scripts:)
  std::vector<std::string> scripts_not_run;    // "name: preinst, postinst"
  std::vector<std::string> native_effects;     // what was produced instead
  nlohmann::json to_json() const override;
};

// The apt section planned on the image the context describes: its layers, components, record
// ("apt"), lock inputs and pins. AptStep calls it with the recipe's section; another step can call
// it with a section of its own (packages from a vendor's apt repository, say).
StepOutput plan_apt(const StepContext& context, const recipe::AptSection& section);

class AptStep final : public Step {
 public:
  std::string name() const override { return "apt"; }
  bool applies(const recipe::Recipe& recipe) const override { return recipe.apt.has_value(); }
  StepOutput plan(const StepContext& context) const override;
  bool reads_from_base(std::string_view path) const override;
  bool locks() const override { return true; }
};

}  // namespace rp
