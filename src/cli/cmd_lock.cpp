// rockpack lock: the recipe resolved (as `rockpack plan` resolves it: metadata only, no layer built)
// and written as a lock file that `build --locked` builds from (plan/lock_file.hpp has the format).
#include <spdlog/spdlog.h>

#include "cli/build_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/locking.hpp"
#include "cli/registry_flags.hpp"
#include "plan/lock_file.hpp"
#include "plan/lock_plan.hpp"
#include "plan/steps.hpp"
#include "python/text.hpp"
#include "transports/base_image.hpp"
#include "util/error.hpp"

namespace rp::cli {

namespace {

struct LockArgs {
  std::string recipe;
  std::vector<std::string> set;
  std::vector<std::string> allow_paths;
  std::string output;  // -o FILE (default RECIPE.lock)
  std::string cache_dir;
  std::string platform;
  bool insecure_downloads = false;
  bool update = false;               // --update given
  std::vector<std::string> update_names;  // its names; none: refresh everything
  RegistryFlags registry;
};

void run_lock(const LockArgs& args) {
  const std::string path = lock_path_for(args.recipe, args.output);
  std::optional<Platform> platform_override;
  if (!args.platform.empty()) platform_override = Platform::parse(args.platform);
  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  registry::Session session(registry_options(args.registry));

  // --update NAME...: the lock there is the starting point; everything not named keeps its pin (the
  // base its digest). --update alone, or no lock yet, resolves everything again.
  std::optional<LockFile> previous;
  StepRunOptions steps;
  steps.mode = StepMode::kResolve;
  steps.store = &store;
  steps.downloads.verify_tls = !args.insecure_downloads;
  if (args.update && !args.update_names.empty()) {
    previous = read_lock_file(path);
    steps.lock = LockUse{&*previous, path, false, {}};
    for (const auto& n : args.update_names) steps.lock.update.insert(python::normalize_name(n));
  }
  PlanOptions plan_options;
  plan_options.resolve_base = [&](const std::string& base, const Platform& p, const RootfsView::KeepContent& keep) {
    if (previous) return resolve_locked_base(base, previous->base_digest, p, store, session, keep);
    return transports::resolve_base(base, p, store, session, keep);
  };
  LoadedPlan loaded = load_and_plan(args.recipe, args.set, plan_options, platform_override, steps, args.allow_paths);
  LockFile lock = lock_from_plan(loaded.plan, loaded.recipe);

  if (previous) {
    // Every name given must be something the lock has: a typo would otherwise refresh nothing.
    for (const auto& name : steps.lock.update) {
      bool known = false;
      for (const auto& [step, entry] : previous->steps)
        for (const auto& c : entry.components) known = known || python::normalize_name(c.name) == name;
      known = known || (name == "rocm" && previous->steps.count("rocm"));
      if (!known)
        throw InputError("--update " + name + ": " + path + " locks no package of that name",
                         "name a package the lock has (see its components), or use --update alone to refresh all");
    }
  }
  write_lock_file(path, lock);
  size_t files = 0;
  for (const auto& [step, entry] : lock.steps) files += entry.components.size();
  spdlog::info("locked {} file{}{} to {}", files, files == 1 ? "" : "s",
               lock.base_digest.empty() ? "" : " and the base " + lock.base_digest, path);
  std::printf("%s\n", path.c_str());
}

}  // namespace

void add_lock_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<LockArgs>();
  CLI::App* cmd = app.add_subcommand(
      "lock", "Resolve a recipe and write its lock file (RECIPE.lock): the base digest and every file with URL, sha256 "
              "and size, for `build --locked`");
  cmd->add_option("recipe", args->recipe, "The recipe file (YAML); - reads it from stdin (then -o is required)")->required();
  cmd->add_option("--set", args->set, "Override a recipe arg: --set KEY=VALUE (repeatable)")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("-o,--output", args->output, "Where to write the lock (default RECIPE.lock)");
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
  add_registry_flags(cmd, args->registry);
  cmd->callback([args, update] {
    args->update = update->count() > 0;
    // CLI11 gives `--update` without names as one empty name.
    std::erase(args->update_names, std::string());
    run_lock(*args);
  });
}

}  // namespace rp::cli
