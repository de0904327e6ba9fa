#pragma once
// The recipe's `python:` section, planned: which interpreter the image has (read from its files),
// which wheels satisfy the requirements (resolved against the indexes), their download into the
// store, and the layers that install them. Everything Python-specific happens in src/python/; this
// file only strings those pieces together in the order a build needs them, one named part each:
//
//   interpreter (the image's, or a standalone archive) -> install target (venv or the interpreter's
//   scheme) -> requirements -> package finder -> resolution -> downloads (parallel, verified)
//   -> one install plan per wheel -> layers and the resolution record
//
// The rocm step (rocm_step.cpp) drives the same resolution with typed PythonAdditions: its indexes
// first, the `rocm[...]` requirement, its layers, the native sdist and the devel expansion hook.
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fetch/downloader.hpp"
#include "plan/step.hpp"
#include "python/install_scheme.hpp"
#include "python/interpreter.hpp"
#include "python/native_sdist.hpp"
#include "python/wheel_installer.hpp"
#include "recipe/model.hpp"

namespace rp {

// What another step adds to the python section, typed (no rewritten recipe).
struct PythonAdditions {
  // Indexes searched before the section's own (a section index with the same URL is dropped).
  std::vector<recipe::PythonIndex> leading_indexes;
  // Requirements added after the section's `packages:` (and before its requirements files).
  std::vector<std::pair<std::string, recipe::SourceLocation>> packages;
  // Applied to each of the section's `packages:` strings before they are parsed.
  std::function<std::string(const std::string&)> adjust_package;
  // Named layers after the section's `layers:` (skipped when the section names the layer itself).
  std::vector<std::pair<std::string, std::vector<std::string>>> layers;
  // The one project installed from its sdist without building it, and a last change to the
  // installed wheels before they become layers (expanding a devel tarball). Both may be empty.
  std::shared_ptr<python::NativeSdist> native_sdist;
  std::function<void(std::vector<python::InstalledWheel>& wheels, const python::InstallScheme& scheme)> after_install;
  // Called for each wheel as soon as it is installed, on a download thread while other wheels may
  // still be downloading (so it must be thread-safe): work that needs only that wheel starts early.
  std::function<void(const python::InstalledWheel& wheel, const python::InstallScheme& scheme)> on_installed;
  // A file already on its way into the store (the rocm step's prefetch, started before the
  // resolution), by URL, or nullopt: the download of that URL waits for it, then finds the file in
  // the store (or asks the server whether it changed). Its result says whether it was downloaded.
  std::function<std::optional<std::shared_future<DownloadResult>>(const std::string& url)> prefetched;
};

// One resolved package: its component (name, version, url, sha256, size, index, layer) and how the
// resolver came to it.
struct PythonPackageRecord {
  ResolvedComponent component;
  std::string filename;
  bool requested = false;
  std::vector<std::string> extras;
  std::vector<std::string> required_by;
};

// What the python section resolved; to_json() is the "python" object of `--resolved`
// (docs/python.md, "Resolution output").
struct PythonRecord final : StepRecord {
  nlohmann::json interpreter;  // python::Interpreter::to_json(), with "standalone" when one was unpacked
  std::string target;          // the venv, or the interpreter's prefix
  recipe::IndexStrategy index_strategy = recipe::IndexStrategy::kFirstIndex;
  std::vector<PythonPackageRecord> packages;
  nlohmann::json to_json() const override;
};

struct PythonStepResult {
  std::vector<LayerPlan> layers;  // interpreter, venv and package layers, in image order
  std::vector<EnvChange> env;     // VIRTUAL_ENV, then PATH with the venv or the standalone bin first
  std::shared_ptr<PythonRecord> record;  // null in StepMode::kOffline
  std::optional<ResolvedComponent> interpreter;  // the standalone archive, when the section has one
  python::InstallScheme scheme;          // where packages went (site-packages, scripts)
  // What the section asked for, by category, for the lock file (StepOutput::lock_inputs).
  std::map<std::string, std::vector<std::string>> lock_inputs;
};

// Plans `section` (with `additions`) on top of the image in `context`. In kBuild mode downloads what
// the resolution needs into the store; in kResolve mode stops after the resolution (package layers
// are listed without entries); in kOffline mode only parses requirements and wheel names.
// With a strict lock (build --locked, context.lock) nothing is resolved: the locked files are
// downloaded (by their locked URL, checked against the locked sha256 and size) and installed, after
// the section's inputs are checked against the lock's. With a lock to update (lock --update NAME),
// the packages not named keep their locked version and file.
PythonStepResult plan_python(const StepContext& context, const recipe::PythonSection& section,
                             const PythonAdditions& additions = {});

// The `python:` section of a recipe without `rocm:` (which drives python itself).
class PythonStep final : public Step {
 public:
  std::string name() const override { return "python"; }
  bool applies(const recipe::Recipe& recipe) const override { return recipe.python && !recipe.rocm; }
  StepOutput plan(const StepContext& context) const override;
  // The interpreter's files (python::interpreter_file_of_interest).
  bool reads_from_base(std::string_view path) const override;
  bool locks() const override { return true; }
};

// A python result as a step output: layers, Env changes, packages as components, the record.
StepOutput python_step_output(PythonStepResult result);

}  // namespace rp
