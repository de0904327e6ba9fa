// rockpack lock: the recipe resolved (as `rockpack plan` resolves it: metadata only, no layer built)
// and written as a lock file that `build --locked` builds from (plan/lock_file.hpp has the format).
#include <spdlog/spdlog.h>

#include "build/base.hpp"
#include "build/inputs.hpp"
#include "cli/build_family.hpp"
#include "cli/commands.hpp"
#include "cli/family.hpp"
#include "cli/registry_flags.hpp"
#include "build/variant_files.hpp"
#include "plan/lock_file.hpp"
#include "plan/lock_plan.hpp"
#include "plan/steps.hpp"
#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::cli {

namespace {

struct LockArgs {
  std::string recipe;
  std::vector<std::string> set;
  std::vector<std::string> allow_paths;
  std::string output;  // -o FILE (default RECIPE.lock; RECIPE.VARIANT.lock for a variant)
  std::string cache_dir;
  std::string platform;
  bool insecure_downloads = false;
  bool update = false;               // --update given
  std::vector<std::string> update_names;  // its names; none: refresh everything
  std::string variant;               // --variant NAME: lock that variant of the recipe's matrix:
  bool all_variants = false;         // --all-variants: one lock per variant
  RegistryFlags registry;
};

// One lock resolved: where it goes, and what it holds.
struct ResolvedLock {
  std::string variant;
  std::string path;
  LockFile lock;
  std::optional<LockFile> previous;  // --update NAME...: the lock it started from
};

// Resolves the recipe (one variant of it, when `variant` is given) as `rockpack plan` does, and makes
// its lock. With --update NAME..., the lock at `path` is the starting point: everything not named keeps
// its pin (the base its digest); --update alone, or no lock yet, resolves everything again.
ResolvedLock resolve_lock(const LockArgs& args, const std::string& variant, const std::string& path,
                          const std::optional<Platform>& platform, ContentStore& store, registry::Session& session) {
  ResolvedLock out{variant, path, {}, {}};
  StepRunOptions steps;
  steps.mode = StepMode::kResolve;
  steps.store = &store;
  steps.downloads.verify_tls = !args.insecure_downloads;
  if (args.update && !args.update_names.empty()) {
    out.previous = read_lock_file(path);
    steps.lock = LockUse{&*out.previous, path, false, {}};
    for (const auto& n : args.update_names) steps.lock.update.insert(python::normalize_name(n));
  }
  const LockFile* previous = out.previous ? &*out.previous : nullptr;
  PlanOptions plan_options;
  plan_options.resolve_base = build::base_resolver(store, session, previous);
  build::LoadedPlan loaded = build::load_and_plan(args.recipe, args.set, plan_options, platform, steps, args.allow_paths, variant);
  if (loaded.recipe.variant_count > 0 && !loaded.recipe.variant)
    throw InputError(args.recipe + " has " + std::to_string(loaded.recipe.variant_count) + " variants (matrix:)",
                     "pass --variant NAME for one lock or --all-variants for one per variant; `rockpack matrix " +
                         args.recipe + "` lists them");
  out.lock = lock_from_plan(loaded.plan, loaded.recipe);
  return out;
}

// Whether a previous lock has a package called `name` (normalized), or `rocm` for the ROCm version.
bool lock_knows(const LockFile& lock, const std::string& name) {
  for (const auto& [step, entry] : lock.steps)
    for (const auto& c : entry.components)
      if (python::normalize_name(c.name) == name) return true;
  return name == "rocm" && lock.steps.count("rocm");
}

void run_lock(const LockArgs& args) {
  if (!args.variant.empty() && args.all_variants) throw InputError("--variant and --all-variants exclude each other");
  std::optional<Platform> platform_override;
  if (!args.platform.empty()) platform_override = Platform::parse(args.platform);
  // The variants to lock: every one of the matrix (--all-variants), the one named, or the recipe itself.
  std::vector<std::string> variants{args.variant};
  if (args.variant.empty() && !args.all_variants && recipe_has_variants(args.recipe, args.set))
    throw InputError(args.recipe + " has a matrix: of variants, each with its own lock",
                     "pass --variant NAME for one lock or --all-variants for one per variant; `rockpack matrix " +
                         args.recipe + "` lists them");
  if (args.all_variants) {
    if (!args.output.empty()) build::require_variant_placeholder("-o", args.output, "locks/{variant}.lock");
    variants.clear();
    for (const auto& m : load_family(args.recipe, args.set, args.allow_paths)) variants.push_back(m.name);
    if (variants.empty())
      throw InputError("--all-variants: " + args.recipe + " has no matrix:, so no variants", "lock it without --all-variants");
  }
  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  registry::Session session(registry_options(args.registry));

  // Every variant resolved before any lock is written: a variant that fails leaves every lock as it was.
  std::vector<ResolvedLock> locks;
  for (const auto& v : variants) {
    if (!v.empty()) spdlog::info("locking variant {}", v);
    try {
      locks.push_back(resolve_lock(args, v, build::lock_path_for(args.recipe, args.output, v), platform_override, store, session));
    } catch (const std::exception&) {
      // The error itself (and its exit status) as it is; this line says which variant, and that nothing was written.
      if (args.all_variants) spdlog::error("variant {} failed to resolve: no lock was written", v);
      throw;
    }
  }
  // Every name given must be something a lock has: a typo would otherwise refresh nothing. In a family,
  // a name one variant has is enough (a device package is in its variant's lock only).
  for (const auto& name : args.update_names) {
    if (locks.empty() || !locks.front().previous) break;
    const std::string normalized = python::normalize_name(name);
    bool known = false;
    for (const auto& l : locks) known = known || lock_knows(*l.previous, normalized);
    if (!known)
      throw InputError("--update " + normalized + ": " + (locks.size() == 1 ? locks.front().path : "no lock of the family") +
                           " locks no package of that name",
                       "name a package the lock has (see its components), or use --update alone to refresh all");
  }
  for (const auto& l : locks) {
    write_lock_file(l.path, l.lock);
    size_t files = 0;
    for (const auto& [step, entry] : l.lock.steps) files += entry.components.size();
    spdlog::info("locked {}{} file{}{} to {}", l.variant.empty() ? "" : "variant " + l.variant + ": ", files,
                 files == 1 ? "" : "s", l.lock.base_digest.empty() ? "" : " and the base " + l.lock.base_digest, l.path);
    std::printf("%s\n", l.path.c_str());
  }
}

}  // namespace

void add_lock_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<LockArgs>();
  CLI::App* cmd = app.add_subcommand(
      "lock", "Resolve a recipe and write its lock file (RECIPE.lock): the base digest and every file with URL, sha256 "
              "and size, for `build --locked`");
  cmd->add_option("recipe", args->recipe, "The recipe file (YAML); - reads it from stdin (then -o is required)")->required();
  cmd->add_option("--set", args->set, "Override a recipe arg: --set KEY=VALUE (repeatable)")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("-o,--output", args->output,
                  "Where to write the lock (default RECIPE.lock; for a variant RECIPE.VARIANT.lock; with --all-variants "
                  "a path with {variant} in it)");
  CLI::Option* update = cmd->add_option(
      "--update", args->update_names,
      "Refresh the lock: with names (after the recipe), only those packages (`rocm` for the ROCm version); the "
      "others keep their locked version and file");
  update->expected(0, CLI::detail::expected_max_vector_size)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--cache-dir", args->cache_dir, "The content store (default $XDG_CACHE_HOME/rockpack)");
  cmd->add_option("--platform", args->platform, "Lock for this platform (os/arch[/variant]); overrides the recipe's platform: key");
  cmd->add_flag("--insecure-downloads", args->insecure_downloads,
                "Do not verify TLS certificates of package indexes and download URLs");
  cmd->add_option("--allow-path", args->allow_paths, "As for build: a host directory files: src may read besides the recipe's (repeatable)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--variant", args->variant,
                  "Lock one variant of the recipe's matrix: (its args); `build --variant NAME --locked` reads it");
  cmd->add_flag("--all-variants", args->all_variants,
                "Lock every variant of the recipe's matrix: in one run, one lock file per variant (written only "
                "when every variant resolved); `build --all-variants --locked` reads them");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args, update] {
    args->update = update->count() > 0;
    // CLI11 gives `--update` without names as one empty name.
    std::erase(args->update_names, std::string());
    run_lock(*args);
  });
}

}  // namespace rp::cli
