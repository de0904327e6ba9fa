#pragma once
// The plan: everything the build will do, resolved to exact inputs before any layer is written.
// Layers are entry lists (with their contents' sources), the config is complete but for the diff_ids
// of the new layers. Later stages (registry bases, apt, wheels) add their resolution here, so a lock
// file can record exactly this.
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "entries/entry.hpp"
#include "image/base_image.hpp"
#include "image/image.hpp"
#include "image/rootfs_view.hpp"
#include "recipe/model.hpp"
#include "util/package_kind.hpp"
#include "util/spdx_license.hpp"

namespace rp {

struct LayerPlan {
  std::string name;        // the recipe's layer name
  std::string created_by;  // the history line: which recipe step made it
  std::vector<Entry> entries;
  std::string step;        // the step that planned it ("files", "python", ...), set by apply_step_output
};

// One thing a step resolved to exact content: the future lock-file entry and SBOM component.
struct ResolvedComponent {
  PackageKind kind = PackageKind::kPython;  // kPython, kPythonInterpreter, kDeb
  std::string name;
  std::string version;
  std::string url;      // where it came from, credentials removed
  std::string sha256;   // hex, of the file the url names; empty when not known (kResolve without a hash)
  uint64_t size = 0;    // bytes of that file; 0 when not known
  std::string origin;   // the index, repository or registry it was found on
  std::string layer;    // the layer it went into; empty when it has none of its own
  std::string filename;  // the file's name (a wheel's, a .deb's); empty when the url's last part is it
  bool requested = false;  // named by the recipe itself, not pulled in as a dependency
  // For the SBOM (not in the lock file): what the package's own metadata declares as its license
  // (a wheel's METADATA, a .deb's machine-readable copyright file; empty when it declares none or
  // the file was not read, as in kResolve), the .deb's architecture, and the names of the
  // components of the same step this one depends on, as the resolution chose them (sorted).
  DeclaredLicense license;
  std::string arch;
  std::vector<std::string> depends_on;
  // How the file was verified: empty = against a hash from its index, signature or recipe;
  // "tls-only" = the recipe accepted its index without hashes (`verify: tls-only`), and `sha256`
  // is what the download hashed to (a locked build checks it like any other).
  std::string verification;
  // .debs, for the SBOM (not in the lock file): the Release file of the apt repository it came from
  // (Origin "Ubuntu", Version "22.04", Suite "jammy"), which names its distribution when the image
  // itself does not (no /etc/os-release).
  std::string release_origin;
  std::string release_version;
  std::string release_suite;
};

// What a step's resolution looks like in `--resolved` and `--metadata-file` ({"python": {...}}).
// A step keeps its record typed and says how to write it; only the edges call to_json().
class StepRecord {
 public:
  virtual ~StepRecord() = default;
  virtual nlohmann::json to_json() const = 0;
};

// A component a step resolved, with the step's name.
struct PlannedComponent {
  std::string step;
  ResolvedComponent component;
};

struct BuildPlan {
  std::string name;
  std::string variant;  // the recipe matrix's variant this plan is for; empty without one
  int64_t source_date_epoch = 0;
  std::string created;  // RFC 3339 of source_date_epoch
  Image base;           // empty for scratch; its layers are reused as they are
  // BaseImage::verified: wait_base_verified() before the base's bytes are used for anything but
  // reading (a sandbox, an output); run_steps waits at its end, so a planned build is verified.
  std::shared_future<std::shared_ptr<const BaseLayerReads>> base_verified;
  std::string base_name;    // empty for scratch
  std::string base_digest;
  nlohmann::json config;  // the image config without the new layers' diff_ids/history
  std::vector<LayerPlan> layers;
  std::map<std::string, std::string> annotations;  // manifest annotations
  std::vector<std::string> tags;
  // What the steps resolved, typed: every component (the content of a later lock file and SBOM),
  // and each step's record ({"python": ...} in `build --resolved FILE` and `--metadata-file`).
  std::vector<PlannedComponent> components;
  std::vector<std::pair<std::string, std::shared_ptr<const StepRecord>>> records;
  // What each step asked for and chose besides files (StepOutput::lock_inputs / lock_pins), by step:
  // with `components`, what `rockpack lock` writes.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> lock_inputs;
  std::map<std::string, std::map<std::string, std::string>> lock_pins;

  // Rethrows the base check's error; returns at once when it is done or there is none.
  void wait_base_verified() const { base_reads(); }
  // Waits for the base check and returns its read of the base (BaseImage::verified), or null.
  std::shared_ptr<const BaseLayerReads> base_reads() const {
    return base_verified.valid() ? base_verified.get() : nullptr;
  }
  // Keeps the check's outcome but lets its read go (the steps are done with it).
  void drop_base_reads();
};

// The records as `--resolved` and `--metadata-file` write them: {"python": {...}, "rocm": {...}}.
nlohmann::json resolution_json(const BuildPlan& plan);

struct PlanOptions {
  int64_t source_date_epoch = 0;
  std::string revision;  // VCS revision of the recipe, when known
  std::string source;    // URL of the recipe's repository, when known
  std::optional<BaseImage> base;  // the resolved base, when the caller has it already
  // Resolves a recipe's base (anything but scratch) when `base` is not given: `rockpack build` pulls
  // it here; `validate` leaves this empty and plans without the base's content.
  // `keep`: the files the recipe's steps read from the base (reads_from_base), for the check's read.
  std::function<BaseImage(const std::string& base, const Platform& platform, const RootfsView::KeepContent& keep)>
      resolve_base;
};

// The base step: the plan's name, tags and annotations, the base image, and the config with the
// recipe's own values (env, user, workdir, entrypoint, cmd, labels). No layers: the steps
// (plan/steps.hpp) add those.
BuildPlan make_plan(const recipe::Recipe& recipe, const PlanOptions& options);

std::string rfc3339(int64_t epoch_seconds);

// Sets NAME=value in an image config's Env array (`env`, made an array if it is not), replacing
// every existing NAME=... in place so the variable keeps its position, or appending it.
void set_env_var(nlohmann::json& env, const std::string& name, const std::string& value);

}  // namespace rp
