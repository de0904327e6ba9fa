// rockpack publish RECIPE --repository REPO: the closing step of a family built by a CI matrix (or
// by `build --all-variants`). Checks that every variant's tags are in the repository, then moves
// each variant's floating tags (latest, latest-<target>) onto it, and writes one Markdown summary
// of the family. When a variant is missing, nothing moves: a consumer of `latest` never sees half
// a night.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/family.hpp"
#include "cli/logging.hpp"
#include "cli/progress_display.hpp"
#include "cli/registry_flags.hpp"
#include "reference/reference.hpp"
#include "registry/retag.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp::cli {

namespace {

struct PublishArgs {
  std::string recipe;
  std::vector<std::string> set;
  std::string repository;
  std::string matrix_file;  // the `rockpack matrix` output the CI matrix ran (its tags, even across midnight)
  std::string summary_file;
  bool dry_run = false;
  RegistryFlags registry;
};

// The family from `rockpack matrix` output ({"include": [...]} or the bare list): what the CI jobs
// built, with the tags they pushed.
std::vector<FamilyMember> family_from_matrix_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read --matrix " + path, "give the file `rockpack matrix RECIPE` wrote");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_object() && j.contains("include")) j = j["include"];
  auto bad = [&](const std::string& why) {
    return InputError("--matrix " + path + ": " + why, "give the file `rockpack matrix RECIPE` wrote");
  };
  if (!j.is_array() || j.empty()) throw bad("not a list of variants");
  std::vector<FamilyMember> out;
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("tags") || !e["tags"].is_array())
      throw bad("an entry has no name or tags");
    FamilyMember m;
    m.name = e["name"].get<std::string>();
    for (const auto& t : e["tags"]) {
      if (!t.is_string() || !is_valid_tag(t.get<std::string>())) throw bad("variant " + m.name + " has a bad tag");
      m.tags.push_back(t.get<std::string>());
    }
    if (e.contains("floating")) {
      if (!e["floating"].is_array()) throw bad("variant " + m.name + ": floating is not a list");
      for (const auto& t : e["floating"]) {
        if (!t.is_string() || !is_valid_tag(t.get<std::string>())) throw bad("variant " + m.name + " has a bad floating tag");
        m.floating.push_back(t.get<std::string>());
      }
    }
    if (e.contains("set") && e["set"].is_array())
      for (const auto& s : e["set"]) {
        std::string kv = s.is_string() ? s.get<std::string>() : "";
        auto eq = kv.find('=');
        if (eq != std::string::npos) m.args.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
      }
    out.push_back(std::move(m));
  }
  return out;
}

struct PublishedVariant {
  const FamilyMember* member = nullptr;
  std::optional<registry::FetchedManifest> manifest;
  std::vector<std::string> missing;  // its tags the repository lacks
  uint64_t size = 0;                 // config + layers, compressed
  std::vector<std::pair<std::string, uint64_t>> layers;
};

std::string summary_markdown(const std::string& repository, const std::vector<PublishedVariant>& published, bool moved) {
  std::map<std::string, int> layer_users;
  std::map<std::string, uint64_t> layer_size;
  uint64_t sum = 0;
  for (const auto& p : published)
    for (const auto& [d, s] : p.layers) {
      ++layer_users[d];
      layer_size[d] = s;
      sum += s;
    }
  uint64_t distinct = 0;
  for (const auto& [d, s] : layer_size) distinct += s;
  std::string md = "# " + repository + ": " + std::to_string(published.size()) + " variants\n\n";
  md += "| variant | args | digest | size | tags | floating |\n|---|---|---|---|---|---|\n";
  for (const auto& p : published) {
    std::string tags, floating;
    for (const auto& t : p.member->tags) tags += (tags.empty() ? "" : ", ") + ("`" + t + "`");
    for (const auto& t : p.member->floating) floating += (floating.empty() ? "" : ", ") + ("`" + t + "`");
    md += "| " + p.member->name + " | " + args_text(p.member->args) + " | `" + p.manifest->digest + "` | " +
          human_bytes(p.size) + " | " + tags + " | " + (floating.empty() ? "-" : floating) + " |\n";
  }
  size_t shared = 0;
  for (const auto& [d, n] : layer_users) shared += n > 1;
  md += "\n" + std::to_string(layer_size.size()) + " distinct layers (" + std::to_string(shared) +
        " shared by more than one variant): " + human_bytes(distinct) + " in the registry for the family, against " +
        human_bytes(sum) + " for its images one by one.\n";
  md += moved ? "\nFloating tags moved: every variant was present.\n" : "\nFloating tags not moved (dry run).\n";
  md += "\nPull one: `docker pull " + repository + "@" + published.front().manifest->digest + "`\n";
  return md;
}

void run_publish(const PublishArgs& args) {
  Reference repo = parse_reference(args.repository);
  if (repo.has_tag() || repo.has_digest())
    throw InputError("--repository " + args.repository + " names a tag", "give the repository alone, e.g. ghcr.io/me/app");
  std::vector<FamilyMember> family = args.matrix_file.empty() ? load_family(args.recipe, args.set) : family_from_matrix_file(args.matrix_file);
  if (family.empty()) throw InputError(args.recipe + " has no matrix:, so no family to publish");
  // A floating tag names one variant: two claiming it would race.
  std::map<std::string, std::string> floating_owner;
  for (const auto& m : family)
    for (const auto& f : m.floating) {
      if (floating_owner.count(f) && floating_owner[f] != m.name)
        throw InputError("floating tag '" + f + "' belongs to two variants: " + floating_owner[f] + " and " + m.name,
                         "give each variant its own floating tags (e.g. latest-${TARGET}) and `latest` to one of them");
      floating_owner[f] = m.name;
    }

  registry::Session session(registry_options(args.registry));
  registry::Transport& transport = session.transport(repo.registry);
  // 1. Every variant present, each tag of it naming the same manifest.
  std::vector<PublishedVariant> published;
  std::vector<std::string> problems;
  for (const auto& m : family) {
    PublishedVariant p;
    p.member = &m;
    if (m.tags.empty()) throw InputError("variant " + m.name + " has no tags", "give the recipe or the matrix tags:");
    for (const auto& t : m.tags) {
      auto found = registry::find_manifest(transport, repo.repository, t);
      if (!found) {
        p.missing.push_back(t);
        continue;
      }
      if (p.manifest && p.manifest->digest != found->digest)
        problems.push_back("variant " + m.name + ": tag " + t + " names " + found->digest + ", tag " + m.tags.front() +
                           " names " + p.manifest->digest);
      if (!p.manifest) p.manifest = std::move(found);
    }
    if (!p.missing.empty()) {
      std::string tags;
      for (const auto& t : p.missing) tags += (tags.empty() ? "" : ", ") + t;
      problems.push_back("variant " + m.name + " is missing (" + tags + ")");
    }
    published.push_back(std::move(p));
  }
  if (!problems.empty()) {
    std::string text;
    for (const auto& p : problems) text += "\n  " + p;
    throw Error("the family in " + repo.name() + " is incomplete; no floating tag was moved:" + text,
                "push the missing variants (their CI jobs, or build --all-variants), then publish again");
  }
  // 2. Sizes for the summary, from the manifests (the registry's answer: every field checked).
  auto size_of = [](const nlohmann::json& d) {
    return d.is_object() && d.contains("size") && d["size"].is_number_unsigned() ? d["size"].get<uint64_t>() : uint64_t{0};
  };
  for (auto& p : published) {
    auto j = nlohmann::json::parse(p.manifest->bytes, nullptr, false);
    if (!j.is_object()) continue;
    if (j.contains("config")) p.size += size_of(j["config"]);
    if (j.contains("layers") && j["layers"].is_array())
      for (const auto& l : j["layers"]) {
        uint64_t s = size_of(l);
        p.size += s;
        if (l.is_object() && l.contains("digest") && l["digest"].is_string()) p.layers.emplace_back(l["digest"].get<std::string>(), s);
      }
  }
  // 3. The floating tags move, variant by variant.
  size_t moved = 0;
  if (!args.dry_run) {
    for (const auto& p : published)
      for (const auto& f : p.member->floating) {
        registry::put_tag(transport, repo.repository, f, *p.manifest);
        spdlog::info("{}:{} -> {} ({})", repo.name(), f, p.manifest->digest, p.member->name);
        ++moved;
      }
  }
  log_event("publish", fmt::format("{}: {} variants present, {} floating tag{} moved", repo.name(), published.size(),
                                   moved, moved == 1 ? "" : "s"),
            {{"repository", repo.name()}, {"variants", published.size()}, {"floating_moved", moved}});
  if (!args.summary_file.empty()) write_file_atomic(args.summary_file, summary_markdown(repo.name(), published, !args.dry_run));
  for (const auto& p : published) std::printf("%s %s\n", p.member->name.c_str(), p.manifest->digest.c_str());
}

}  // namespace

void add_publish_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<PublishArgs>();
  CLI::App* cmd = app.add_subcommand(
      "publish", "Close a family build: check every variant of the recipe's matrix: is in the repository, then move "
                 "their floating tags (latest, latest-<target>) and write a Markdown summary; moves nothing when a "
                 "variant is missing");
  cmd->add_option("recipe", args->recipe, "The recipe file (YAML)")->required();
  cmd->add_option("--repository", args->repository, "The repository the variants were pushed to: [registry/]name")->required();
  cmd->add_option("--set", args->set, "The --set args the variants were built with (repeatable)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--matrix", args->matrix_file,
                  "The `rockpack matrix` output the CI jobs built (its tags: a night that crosses midnight keeps its "
                  "DATE); default: the recipe evaluated now");
  cmd->add_option("--summary", args->summary_file, "Write the family's Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)");
  cmd->add_flag("--dry-run", args->dry_run, "Check the family and write the summary; move no tag");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_publish(*args); });
}

}  // namespace rp::cli
