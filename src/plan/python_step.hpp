#pragma once
// The recipe's `python:` section, planned: which interpreter the image has (read from its files),
// which wheels satisfy the requirements (resolved against the indexes), their download into the
// store, and the layers that install them. Everything Python-specific happens in src/python/; this
// file only strings those pieces together in the order a build needs them:
//
//   interpreter archive (standalone) -> interpreter facts -> venv -> requirements -> resolution
//   -> downloads (parallel, verified) -> one install plan per wheel -> layers
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fetch/downloader.hpp"
#include "plan/plan.hpp"
#include "python/install_scheme.hpp"
#include "python/native_sdist.hpp"
#include "python/wheel_installer.hpp"
#include "recipe/model.hpp"
#include "store/content_store.hpp"

namespace rp {

struct PythonStepOptions {
  ContentStore* store = nullptr;  // required
  DownloadOptions downloads;
  // Ecosystem hooks (TheRock, src/plan/rocm_step.cpp): the one project installed from its sdist
  // without building it, and a last change to the installed wheels before they become layers
  // (expanding a devel tarball). Both may be empty.
  std::shared_ptr<python::NativeSdist> native_sdist;
  std::function<void(std::vector<python::InstalledWheel>& wheels, const python::InstallScheme& scheme)> after_install;
};

struct PythonStepResult {
  std::vector<LayerPlan> layers;  // interpreter, venv and package layers, in image order
  // Variables the image needs to use what was installed (VIRTUAL_ENV, PATH with the venv or the
  // standalone interpreter first); `PATH` values are prefixes to put in front of the existing PATH.
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> path_prefixes;
  // What was resolved: interpreter facts and every package's name, version, file, URL, sha256 and
  // index. The shape a lock file records (docs/python.md, "Resolution output").
  nlohmann::json resolution;
  python::InstallScheme scheme;  // where packages went (site-packages, scripts)
};

// Plans the python section on top of `plan` (its base and the layers of earlier steps are what the
// interpreter is looked up in). Downloads what the resolution needs into the store.
PythonStepResult plan_python(const recipe::Recipe& recipe, const BuildPlan& plan, const PythonStepOptions& options);

// Adds the result to the plan: layers after the recipe's own, PATH and VIRTUAL_ENV into the config
// (recipe `env:` values still win), and the resolution for the build's outputs.
void apply_python_step(BuildPlan& plan, const recipe::Recipe& recipe, PythonStepResult result);

}  // namespace rp
