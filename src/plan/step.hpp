#pragma once
// The build-step seam. Every recipe section that adds to the image (files, python, rocm; apt,
// accounts and run next) is a Step: it reads a StepContext — the recipe, the image as built so far
// (base plus the layers of earlier steps), the store, the platform, the download options — and
// returns a StepOutput: layers (entry lists), config changes, and a typed record of what it resolved.
// A step never touches the plan itself: src/plan/steps.cpp runs the steps in their one documented
// order and applies every output the same way (apply_step_output). JSON is made only at the edges
// (`build --resolved`, `--metadata-file`, `plan --json`) from the typed records.
//
// How to add a step: docs/architecture.md, "Adding a step".
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fetch/downloader.hpp"
#include "image/rootfs_view.hpp"
#include "plan/layer_prebuild.hpp"
#include "plan/lock_file.hpp"
#include "plan/plan.hpp"
#include "recipe/model.hpp"
#include "store/content_store.hpp"

namespace rp {

// How far a step goes.
enum class StepMode {
  kOffline,  // `validate`: every check that needs no network and no store; no layers need be made
  kResolve,  // `plan`, `build --dry-run`: resolve every input (metadata only), make no layer content
  kBuild,    // `build`: everything, downloads into the store included
};

// One change to the image config's Env. Every step's Env goes through apply_env_changes, the one
// merge rule: changes apply in order; a variable the recipe's own `env:` sets is never changed by a
// step; kSet replaces every NAME=... in place (the variable keeps its position) or appends;
// kPrependPath puts `value` ("a:b:") in front of the current PATH (Debian's default PATH when the
// image has none).
struct EnvChange {
  enum class Kind { kSet, kPrependPath };
  Kind kind = Kind::kSet;
  std::string name;   // kPrependPath: always "PATH"
  std::string value;
};

struct ConfigChanges {
  std::vector<EnvChange> env;
  // Makes sure the config has an Env array even when `env` is empty (the python step's images
  // always had one; their digests must not change).
  bool ensure_env = false;
  // Labels set unless the recipe's own `labels:` has the key; empty values are not set.
  std::vector<std::pair<std::string, std::string>> labels;
};

struct StepOutput {
  std::vector<LayerPlan> layers;  // appended to the image in this order
  ConfigChanges config;
  std::vector<ResolvedComponent> components;
  // The records for `--resolved` / `--metadata-file`, each under its key ("python", "rocm").
  std::vector<std::pair<std::string, std::shared_ptr<const StepRecord>>> records;
  // For the lock file (plan/lock_file.hpp): what the recipe asked of the step, by category
  // ("requirements", "indexes", ...; a locked build whose recipe asks otherwise is refused), and what
  // the step chose that is no file (rocm: version, layout).
  std::map<std::string, std::vector<std::string>> lock_inputs;
  std::map<std::string, std::string> lock_pins;
};

struct StepContext {
  const recipe::Recipe& recipe;
  const BuildPlan& plan;  // the base and the layers (and Env) of earlier steps
  StepMode mode = StepMode::kBuild;
  ContentStore* store = nullptr;  // required unless mode is kOffline
  DownloadOptions downloads;
  std::string step;  // the running step's name (run_steps sets it): its entry in the lock file
  LockUse lock;      // build --locked, lock --update: the locked pins (none by default)
  bool strict = false;  // StepRunOptions::strict
  LayerPrebuild* prebuild = nullptr;  // StepRunOptions::prebuild

  const Platform& platform() const { return recipe.platform; }
  // The running step's lock entry, or null (no lock, or nothing locked for the step).
  const StepLock* locked() const { return lock.step(step); }
  // The image's file system so far: the base's layers then every entry of the earlier steps'
  // layers, with the contents `keep` asks for held in memory (and maybe others). Waits for the
  // base's check and uses its read of the base when it made one (BuildPlan::base_reads): that read
  // kept what the steps' Step::reads_from_base ask for, so `keep` must ask for no more than the
  // running step's reads_from_base.
  RootfsView rootfs(const RootfsView::KeepContent& keep) const;
  // The image's Env so far ("NAME=value" strings).
  std::vector<std::string> image_env() const;
};

class Step {
 public:
  virtual ~Step() = default;
  // The step's name in messages, `rockpack plan` and docs ("files", "python", "rocm").
  virtual std::string name() const = 0;
  // Whether the recipe has anything for this step (its section is present).
  virtual bool applies(const recipe::Recipe& recipe) const = 0;
  virtual StepOutput plan(const StepContext& context) const = 0;
  // The files (paths relative to the root) whose contents the step reads from the image below it
  // through StepContext::rootfs. The base's check keeps them when it reads the base, so the check
  // and every step share one read of it instead of decompressing it once each.
  virtual bool reads_from_base(std::string_view /*path*/) const { return false; }
  // Whether the step resolves inputs a lock file pins (its lock_inputs, pins, components): a locked
  // build refuses a lock that has no entry for such a step, or one for a step the recipe lacks.
  virtual bool locks() const { return false; }
};

// The one Env merge rule (see EnvChange) on an image config's Env array (made an array if it is not).
void apply_env_changes(nlohmann::json& env, const std::vector<EnvChange>& changes, const recipe::Recipe& recipe);

// Adds a step's output to the plan: its layers after the existing ones, its config changes (Env by
// apply_env_changes, labels unless the recipe sets them), its components and record.
void apply_step_output(BuildPlan& plan, const recipe::Recipe& recipe, const std::string& step, StepOutput output);

}  // namespace rp
