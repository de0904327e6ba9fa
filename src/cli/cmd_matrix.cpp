// rockpack matrix RECIPE: the variants of a recipe's matrix: as a CI engine takes them — GitHub
// Actions' `strategy.matrix` (through fromJSON), GitLab's `parallel:matrix`, or names for a shell
// loop — each with its args, tags and the runner size its plan needs.
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/build_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/family.hpp"
#include "cli/registry_flags.hpp"
#include "plan/plan.hpp"
#include "plan/steps.hpp"
#include "transports/base_image.hpp"
#include "util/error.hpp"

namespace rp::cli {

namespace {

struct MatrixArgs {
  std::string recipe;
  std::vector<std::string> set;
  std::vector<std::string> allow_paths;
  std::string format = "github";
  bool estimate = true;
  std::vector<std::string> runners;  // SIZE=LABEL
  std::string cache_dir;
  RegistryFlags registry;
};

// Runner classes by the disk a build needs (GitHub's standard runners leave about 14 GB free).
struct RunnerEstimate {
  std::string size;  // small | medium | large
  double disk_gb = 0;
  uint64_t download_bytes = 0;
};

// From the variant's plan in StepMode::kResolve: what it downloads (every component's size), the
// base, and the files it copies. The store keeps the downloads and the compressed layers (about the
// downloads again: wheels and .debs are compressed about as well as the layers); a run: step unpacks
// the image so far as well, so it needs the uncompressed size (about three times) on top.
RunnerEstimate estimate_runner(const BuildPlan& plan, bool has_run_step) {
  RunnerEstimate e;
  uint64_t base = 0, files = 0;
  for (const auto& c : plan.components) e.download_bytes += c.component.size;
  for (const auto& l : plan.base.layers) base += static_cast<uint64_t>(l.blob.size);
  for (const auto& l : plan.layers)
    if (l.step == "files")
      for (const auto& en : l.entries) files += en.size();
  double bytes = static_cast<double>(base) + 2.0 * static_cast<double>(e.download_bytes) + 2.0 * static_cast<double>(files);
  if (has_run_step) bytes += 3.0 * static_cast<double>(base + e.download_bytes);
  e.disk_gb = std::ceil(bytes / 1e9 * 10) / 10;
  e.size = e.disk_gb <= 14 ? "small" : e.disk_gb <= 64 ? "medium" : "large";
  return e;
}

std::map<std::string, std::string> runner_labels(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> out;
  for (const auto& p : pairs) {
    auto eq = p.find('=');
    std::string size = p.substr(0, eq);
    if (eq == std::string::npos || (size != "small" && size != "medium" && size != "large"))
      throw InputError("--runner '" + p + "' is not SIZE=LABEL", "SIZE is small, medium or large, e.g. --runner large=ubuntu-24.04-16core");
    out[size] = p.substr(eq + 1);
  }
  return out;
}

void run_matrix(const MatrixArgs& args) {
  if (args.format != "github" && args.format != "json" && args.format != "names" && args.format != "gitlab")
    throw InputError("--format " + args.format + " is not known", "use github, json, gitlab or names");
  std::map<std::string, std::string> labels = runner_labels(args.runners);
  std::vector<FamilyMember> family = load_family(args.recipe, args.set, args.allow_paths);
  if (family.empty())
    throw InputError(args.recipe + " has no matrix:, so no variants", "add a matrix: (docs/recipe.md, \"Variants\")");

  if (args.format == "names") {
    for (const auto& m : family) std::printf("%s\n", m.name.c_str());
    return;
  }
  if (args.format == "gitlab") {
    // For a generated child pipeline, or pasted into .gitlab-ci.yml: one job per variant.
    std::printf("parallel:\n  matrix:\n    - VARIANT:\n");
    for (const auto& m : family) std::printf("        - \"%s\"\n", m.name.c_str());
    return;
  }
  std::optional<ContentStore> store;
  std::optional<registry::Session> session;
  if (args.estimate) {
    store.emplace(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
    session.emplace(registry_options(args.registry));
  }
  nlohmann::json include = nlohmann::json::array();
  for (const auto& m : family) {
    // The args the variant sets, as --set would take them (what a job names in its title or
    // passes to another tool; rockpack itself needs only --variant NAME).
    nlohmann::json set = nlohmann::json::array();
    for (const auto& [k, v] : m.args) set.push_back(k + "=" + v);
    std::string tags_csv;
    for (const auto& t : m.tags) tags_csv += (tags_csv.empty() ? "" : ",") + t;
    nlohmann::json entry = {{"name", m.name}, {"set", set}, {"tags", m.tags}, {"tags_csv", tags_csv}, {"floating", m.floating}};
    if (args.estimate) {
      StepRunOptions steps;
      steps.mode = StepMode::kResolve;
      steps.store = &*store;
      PlanOptions plan_options;
      plan_options.resolve_base = [&store, &session](const std::string& base, const Platform& p,
                                                     const RootfsView::KeepContent& keep) {
        return transports::resolve_base(base, p, *store, *session, keep);
      };
      LoadedPlan loaded = load_and_plan(args.recipe, args.set, plan_options, {}, steps, args.allow_paths, m.name);
      RunnerEstimate e = estimate_runner(loaded.plan, !loaded.recipe.run.empty());
      entry["runner"] = labels.count(e.size) ? labels[e.size] : e.size;
      entry["runner_size"] = e.size;
      entry["disk_gb"] = e.disk_gb;
      entry["download_bytes"] = e.download_bytes;
    } else if (labels.count("small")) {
      entry["runner"] = labels["small"];
    }
    include.push_back(std::move(entry));
  }
  if (args.format == "github") {
    // One line: `echo "matrix=$(rockpack matrix r.yaml)" >> "$GITHUB_OUTPUT"`.
    std::printf("%s\n", nlohmann::json{{"include", include}}.dump().c_str());
  } else {
    std::printf("%s\n", include.dump(2).c_str());
  }
}

}  // namespace

void add_matrix_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<MatrixArgs>();
  CLI::App* cmd = app.add_subcommand(
      "matrix", "List the variants of a recipe's matrix: for a CI matrix: name, --set args, tags, floating tags and "
                "the runner size each one's plan needs");
  cmd->add_option("recipe", args->recipe, "The recipe file (YAML)")->required();
  cmd->add_option("--set", args->set, "Override a recipe arg for every variant: --set KEY=VALUE (repeatable)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--format", args->format,
                  "github: {\"include\": [...]} on one line, for strategy.matrix through fromJSON (default); json: the "
                  "entries, indented; gitlab: a parallel:matrix block over VARIANT; names: one variant name a line");
  cmd->add_flag("!--no-estimate", args->estimate,
                "Do not plan the variants (no network): the entries have no runner size");
  cmd->add_option("--runner", args->runners,
                  "The runs-on label of a runner size: SIZE=LABEL, SIZE one of small, medium, large (repeatable); "
                  "an entry's runner is then the label")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--cache-dir", args->cache_dir, "The content store planning reads (default $XDG_CACHE_HOME/rockpack)");
  cmd->add_option("--allow-path", args->allow_paths, "As for build (repeatable)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_matrix(*args); });
}

}  // namespace rp::cli
