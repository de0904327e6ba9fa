#pragma once
// The apt step's script part. With `scripts: run` (or `auto` where the sandbox works) the packages'
// maintainer scripts run in the sandbox on the image with the apt layers, as dpkg would run them
// after unpacking (apt/maintainer_scripts.hpp), and what they change is one more layer, cached like
// a run: item. Otherwise their common effects are produced natively (apt/native_effects.hpp).
#include <functional>
#include <string>
#include <vector>

#include "apt/native_effects.hpp"
#include "apt/package_index.hpp"
#include "apt/unpacked_package.hpp"
#include "entries/file_tree.hpp"
#include "plan/sandbox_layers.hpp"
#include "plan/step.hpp"
#include "recipe/model.hpp"

namespace rp {

// Whether the scripts run: `scripts: native` never, `run` always (the image must have dpkg; throws
// rp::InputError otherwise), `auto` when the sandbox works here (a loud warning when it does not).
bool apt_scripts_run(const recipe::AptSection& section, const FileTree& installed_tree,
                     const std::vector<apt::UnpackedPackage>& added);

// The scripts' layer: the state dpkg leaves after unpacking (the new packages "unpacked",
// conffiles as .dpkg-new) prepared in the sandbox's root, then apt::configure_script run there.
// `sandbox`: the step's, when it started writing the root early (SandboxLayers::start_root); else
// one is made here. `scripts_start`: called when the root is ready and the scripts are about to run
// (not when their layer is cached).
LayerPlan maintainer_scripts_layer(const StepContext& context, const recipe::AptSection& section,
                                   const apt::InstalledDatabase& installed, const std::vector<apt::UnpackedPackage>& added,
                                   const std::vector<LayerPlan>& apt_layers, SandboxLayers* sandbox = nullptr,
                                   const std::function<void()>& scripts_start = {});

}  // namespace rp
