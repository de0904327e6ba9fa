// rockpack check IMAGE: runs a recipe's `checks:` (and --run commands) in the sandbox on a finished
// image — the smoke test before a push: `hipcc --version`, `python -c 'import torch'`, a C file
// compiled, ROCM_PATH in a login shell. No GPU and no container runtime needed. Exit 0 when every
// check passes, 1 when one fails, 2 when there is nothing to check.
#include <cstdio>

#include "build/inputs.hpp"
#include "cli/commands.hpp"
#include "cli/registry_flags.hpp"
#include "plan/run_step.hpp"
#include "plan/sandbox_layers.hpp"
#include "store/content_store.hpp"
#include "transports/load.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::cli {

namespace {

struct CheckArgs {
  std::string image;
  std::string recipe;
  std::vector<std::string> set;
  std::vector<std::string> run;
  std::string platform = "linux/amd64";
  std::string cache_dir;
  RegistryFlags registry;
};

std::string config_string(const nlohmann::json& config, const char* key) {
  if (!config.contains("config") || !config["config"].is_object()) return {};
  auto it = config["config"].find(key);
  return it != config["config"].end() && it->is_string() ? it->get<std::string>() : std::string();
}

void run_check(const CheckArgs& args) {
  std::vector<recipe::RunItem> checks;
  if (!args.recipe.empty()) {
    recipe::Recipe r = recipe::load_recipe(args.recipe, build::load_options(args.set));
    checks = r.checks;
  }
  for (size_t i = 0; i < args.run.size(); ++i) {
    recipe::RunItem item;
    item.name = "run-" + std::to_string(i + 1);
    item.shell = args.run[i];
    item.timeout_seconds = 3600;
    checks.push_back(std::move(item));
  }
  if (checks.empty())
    throw InputError("nothing to check: the recipe has no checks: and no --run was given",
                     "add a checks: list to the recipe (same items as run:), or pass --run 'COMMAND'");

  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  registry::Session session(registry_options(args.registry));
  transports::SourcedImage img =
      transports::load_image(transports::parse_location(args.image), Platform::parse(args.platform), store, session);
  BuildPlan plan;
  plan.base = img.image;
  plan.config = img.image.config;
  std::vector<std::string> env;
  if (plan.config.contains("config"))
    for (const auto& e : plan.config["config"].value("Env", nlohmann::json::array()))
      if (e.is_string()) env.push_back(e.get<std::string>());
  // The finished image's user and working directory, as `docker run` would use them.
  const std::string user = config_string(plan.config, "User");
  const std::string workdir = config_string(plan.config, "WorkingDir");

  SandboxLayers sandbox(plan, store);
  size_t failed = 0;
  for (const auto& item : checks) {
    SandboxJob job = sandbox_job_of(item, "check", env, user, workdir);
    SandboxCheckResult result = sandbox.check(job);
    if (!result.timed_out && result.exit_code == 0 && result.setup_error.empty()) {
      std::printf("ok      %s (%.1f s)\n", item.name.c_str(), result.seconds);
      continue;
    }
    ++failed;
    std::printf("FAILED  %s: %s\n", item.name.c_str(),
                result.timed_out ? ("stopped after its time limit of " + std::to_string(item.timeout_seconds) +
                                    " s (its container was killed)").c_str()
                : !result.setup_error.empty() ? ("could not be started in the sandbox: " + result.setup_error).c_str()
                                              : ("exit code " + std::to_string(result.exit_code)).c_str());
    for (const auto& line : result.last_lines) std::printf("        | %s\n", shorten(line, 400).c_str());
  }
  std::printf("%zu of %zu checks passed\n", checks.size() - failed, checks.size());
  std::fflush(stdout);
  if (failed > 0)
    throw Error(std::to_string(failed) + " of " + std::to_string(checks.size()) + " checks failed on " + args.image,
                "their output is above; fix the image (or the checks) before pushing it");
}

}  // namespace

void add_check_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Run a recipe's checks: (and --run commands) in the sandbox on a finished image (exit 1 when one fails)");
  cmd->add_option("image", args->image, "oci:DIR[:TAG], oci-archive:FILE[:TAG], docker-archive:FILE or a registry reference")
      ->required();
  cmd->add_option("--recipe", args->recipe, "The recipe whose checks: to run");
  cmd->add_option("--set", args->set, "Override a recipe arg: --set KEY=VALUE (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--run", args->run, "A shell command to run as one more check (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--platform", args->platform, "Which image of a multi-platform index (default linux/amd64)");
  cmd->add_option("--cache-dir", args->cache_dir, "The content store the image is read through");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_check(*args); });
}

}  // namespace rp::cli
