// rockpack build: recipe -> plan -> assemble -> outputs.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>

#include "plan/image_assembler.hpp"
#include "cli/build_inputs.hpp"
#include "cli/build_sbom.hpp"
#include "cli/commands.hpp"
#include "cli/locking.hpp"
#include "cli/logging.hpp"
#include "cli/progress_display.hpp"
#include "cli/registry_flags.hpp"
#include "cli/vcs_info.hpp"
#include "cli/image_io.hpp"
#include "net/url.hpp"
#include "output/output_spec.hpp"
#include "cli/plan_output.hpp"
#include "plan/lock_file.hpp"
#include "plan/plan.hpp"
#include "plan/steps.hpp"
#include "registry/base_image.hpp"
#include "registry/push.hpp"
#include "registry/reference.hpp"
#include "util/error.hpp"

namespace rp::cli {

namespace {

struct BuildArgs {
  std::string recipe;
  std::vector<std::string> set;
  std::vector<std::string> allow_paths;  // --allow-path: host directories files: src may read
  std::vector<std::string> outputs;
  std::string cache_dir;
  std::string compression;  // empty: the recipe's `compression:`, else gzip
  unsigned threads = 0;
  bool no_cache = false;
  std::string revision;
  std::string source;
  std::string metadata_file;
  std::string resolved_file;
  std::string sbom_file;
  std::string sbom_format = "spdx";
  bool insecure_downloads = false;
  std::vector<std::string> push;  // registry references (--push)
  std::string platform;           // empty: the recipe's
  bool dry_run = false;           // resolve every step and print the plan; write nothing
  bool json = false;              // with --dry-run: the plan as JSON
  bool locked = false;            // --locked: build from the lock file's pins only
  std::string lock_file;          // --lock FILE (default RECIPE.lock)
  bool store_only = false;        // --store-only: download nothing; every file must be in the store
  RegistryFlags registry;
};

// --push REF: a reference without tag or digest gets every recipe tag (or :latest when it has none).
std::vector<registry::Reference> push_references(const std::vector<std::string>& args,
                                                 const std::vector<std::string>& recipe_tags) {
  std::vector<registry::Reference> out;
  for (const auto& a : args) {
    registry::Reference ref = registry::parse_reference(a);
    if (ref.has_tag() || ref.has_digest() || recipe_tags.empty()) {
      out.push_back(ref);
    } else {
      for (const auto& t : recipe_tags) out.push_back(ref.with_tag(t));
    }
  }
  return out;
}

void run_build(const BuildArgs& args) {
  auto started = std::chrono::steady_clock::now();
  // Checked before any work; the recipe's choice replaces the default once the recipe is loaded.
  Compression compression = Compression::parse(args.compression.empty() ? "gzip" : args.compression);
  std::vector<ImageLocation> outputs;
  for (const auto& o : args.outputs) {
    outputs.push_back(ImageLocation::parse(o));
    // A docker archive's name must be a valid reference: checked before any work.
    if (!outputs.back().name.empty()) (void)registry::parse_reference(outputs.back().name + ":" + outputs.back().tag);
  }
  std::optional<Platform> platform_override;
  if (!args.platform.empty()) platform_override = Platform::parse(args.platform);
  for (const auto& p : args.push) (void)registry::parse_reference(p);  // bad references fail before any work
  check_sbom_format(args.sbom_format);

  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  registry::Session session(registry_options(args.registry));
  // From here on: base and wheel downloads, layer compression and pushes report their progress.
  ProgressDisplay progress(ProgressDisplay::mode_for_stderr());

  PlanOptions plan_options;
  VcsInfo vcs = detect_vcs(args.recipe == "-" ? fs::current_path() : fs::absolute(args.recipe).parent_path());
  plan_options.revision = args.revision.empty() ? vcs.revision : args.revision;
  plan_options.source = net::redact_credentials(args.source.empty() ? vcs.source : args.source);
  // A base other than scratch is pulled (or imported) into the store while planning.
  std::optional<LockFile> lock;
  if (args.locked || !args.lock_file.empty()) lock = read_lock_file(lock_path_for(args.recipe, args.lock_file));
  plan_options.resolve_base = [&store, &session, &lock](const std::string& base, const Platform& platform) {
    // --locked: a registry base is pulled by its locked digest (the tag may have moved since).
    if (lock) return resolve_locked_base(base, lock->base_digest, platform, store, session);
    return registry::resolve_base(base, platform, store, session);
  };
  // Every step (plan/steps.cpp), in its order; with --dry-run they resolve without downloading.
  StepRunOptions steps{args.dry_run ? StepMode::kResolve : StepMode::kBuild, &store, {}, {}};
  steps.downloads.verify_tls = !args.insecure_downloads;
  steps.downloads.store_only = args.store_only;
  if (lock) steps.lock = LockUse{&*lock, lock_path_for(args.recipe, args.lock_file), true, {}};
  LoadedPlan loaded = load_and_plan(args.recipe, args.set, plan_options, platform_override, steps, args.allow_paths);
  BuildPlan plan = std::move(loaded.plan);
  if (args.compression.empty() && loaded.recipe.compression) compression = Compression::parse(*loaded.recipe.compression);
  if (args.dry_run) {
    print_plan(plan, store, compression, args.json);
    return;
  }
  if (outputs.empty() && args.push.empty()) outputs.push_back(ImageLocation::parse("oci:out/" + plan.name));
  std::vector<registry::Reference> push_refs = push_references(args.push, plan.tags);
  spdlog::info("building {} ({} layer{}, {})", plan.name, plan.layers.size(), plan.layers.size() == 1 ? "" : "s",
               compression.str());

  LayerOptions layer_options{compression, plan.source_date_epoch, args.threads, !args.no_cache};
  LayerBuilder builder(store, layer_options, &progress);
  AssembledImage assembled = assemble_image(plan, builder);
  SealedImage sealed = seal(assembled.image);
  // Made once: written next to the image and attached to every pushed tag.
  const std::string sbom = args.sbom_file.empty() ? std::string() : sbom_text(plan, sealed, args.sbom_format);

  for (const auto& out : outputs) {
    write_image(sealed, store, out, {plan.name, plan.tags}, plan.source_date_epoch);
    spdlog::info("wrote {}", out.str());
  }
  std::vector<std::string> pushed;
  if (!push_refs.empty()) {
    registry::PushResult r = registry::push_image(sealed, store, push_refs, session);
    for (const auto& p : r.pushed) spdlog::info("pushed {}", p);
    pushed = r.pushed;
    if (!args.sbom_file.empty())
      attach_sbom(sbom, args.sbom_format, sealed, push_refs, store, session);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  spdlog::info("image {} ({} layer{}) built in {:.1f}s", sealed.manifest.digest, sealed.layers.size(),
               sealed.layers.size() == 1 ? "" : "s", secs);

  if (!args.metadata_file.empty()) {
    nlohmann::json meta = {{"name", plan.name},
                           {"manifest_digest", sealed.manifest.digest},
                           {"config_digest", sealed.config.digest},
                           {"tags", plan.tags},
                           {"outputs", nlohmann::json::array()},
                           {"layers", nlohmann::json::array()}};
    for (const auto& o : outputs) meta["outputs"].push_back(o.str());
    if (!plan.base_name.empty()) meta["base"] = {{"name", plan.base_name}, {"digest", plan.base_digest}};
    meta["pushed"] = pushed;
    if (nlohmann::json resolution = resolution_json(plan); !resolution.empty()) meta["resolution"] = resolution;
    for (const auto& l : sealed.layers)
      meta["layers"].push_back({{"digest", l.blob.digest}, {"size", l.blob.size}, {"diff_id", l.diff_id}});
    write_file_atomic(args.metadata_file, meta.dump(2) + "\n");
  }
  if (!args.resolved_file.empty()) {
    nlohmann::json resolved = {{"rockpack_resolution", 1}, {"name", plan.name}, {"image", sealed.manifest.digest}};
    resolved.update(resolution_json(plan));
    write_file_atomic(args.resolved_file, resolved.dump(2) + "\n");
  }
  if (!args.sbom_file.empty()) write_file_atomic(args.sbom_file, sbom);
  std::printf("%s\n", sealed.manifest.digest.c_str());
}

}  // namespace

void add_build_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<BuildArgs>();
  CLI::App* cmd = app.add_subcommand("build", "Build an image from a recipe");
  cmd->add_option("recipe", args->recipe,
                  "The recipe file (YAML); - reads it from stdin (relative paths are then relative to the working directory)")
      ->required();
  cmd->add_option("--set", args->set, "Override a recipe arg: --set KEY=VALUE (repeatable)")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--allow-path", args->allow_paths, "Let files: src read this host directory too (repeatable); by default src stays within the directory of the recipe (or fragment) that names it")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("-o,--output", args->outputs,
                  "Where to write the image: oci:DIR[:TAG], oci-archive:FILE[:TAG] or docker-archive:FILE[:NAME:TAG] "
                  "(repeatable; default oci:out/<name> with every recipe tag)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--cache-dir", args->cache_dir, "The content store (default $XDG_CACHE_HOME/rockpack)");
  cmd->add_option("--compression", args->compression, "Layer compression: gzip[:1-12], zstd[:1-19], none (default: the recipe's compression:, else gzip)");
  cmd->add_option("--threads", args->threads, "Compression threads (default: one per core)");
  cmd->add_flag("--no-cache", args->no_cache, "Rebuild every layer even if the store has it");
  cmd->add_option("--revision", args->revision, "org.opencontainers.image.revision (default: git HEAD of the recipe)");
  cmd->add_option("--source", args->source, "org.opencontainers.image.source (default: the git origin URL)");
  cmd->add_option("--metadata-file", args->metadata_file, "Write the build result (digests, layers) as JSON here");
  cmd->add_option("--resolved", args->resolved_file,
                  "Write what was resolved (Python packages: version, file, URL, sha256, index) as JSON here");
  cmd->add_option("--sbom", args->sbom_file,
                  "Write the image's SBOM here: every wheel, interpreter, .deb and the base, with purl and sha256");
  cmd->add_option("--sbom-format", args->sbom_format, "spdx (SPDX 2.3 JSON, the default) or cyclonedx (CycloneDX 1.5 JSON)");
  cmd->add_flag("--insecure-downloads", args->insecure_downloads,
                "Do not verify TLS certificates of package indexes and download URLs");
  cmd->add_option("--push", args->push,
                  "Push the image to a registry: [registry/]name[:tag] (repeatable; without a tag, every recipe tag)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--platform", args->platform,
                  "Build for this platform (os/arch[/variant], e.g. linux/arm64); overrides the recipe's platform: key");
  cmd->add_flag("--dry-run", args->dry_run,
                "Resolve every step (base, packages, layers) and print the plan, as `rockpack plan` does; write no image");
  cmd->add_flag("--json", args->json, "With --dry-run: print the plan as JSON");
  cmd->add_flag("--locked", args->locked,
                "Build exactly what the lock file pins (base digest, every file by URL, sha256 and size); exit 2 when "
                "the recipe no longer matches it (see `rockpack lock`)");
  cmd->add_option("--lock", args->lock_file, "The lock file for --locked (default RECIPE.lock); implies --locked");
  cmd->add_flag("--store-only", args->store_only,
                "Download nothing: every file must already be in the store (with --locked, builds a lock whose files "
                "their index no longer has)");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_build(*args); });
}

void add_plan_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<BuildArgs>();
  args->dry_run = true;
  CLI::App* cmd = app.add_subcommand(
      "plan", "Resolve a recipe without building it: base digest, every layer with its step, every package with "
              "version, URL and sha256 (pulls the base and reads package metadata; builds no layer, writes no image)");
  cmd->add_option("recipe", args->recipe, "The recipe file (YAML); - reads it from stdin")->required();
  cmd->add_option("--set", args->set, "Override a recipe arg: --set KEY=VALUE (repeatable)")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--cache-dir", args->cache_dir, "The content store (default $XDG_CACHE_HOME/rockpack)");
  cmd->add_option("--compression", args->compression, "The compression a build would use (which cached layers count)");
  cmd->add_flag("--json", args->json, "Print the plan as JSON");
  cmd->add_flag("--insecure-downloads", args->insecure_downloads,
                "Do not verify TLS certificates of package indexes and download URLs");
  cmd->add_option("--platform", args->platform, "Plan for this platform (os/arch[/variant]); overrides the recipe's platform: key");
  cmd->add_option("--allow-path", args->allow_paths, "As for build: a host directory files: src may read besides the recipe's (repeatable)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_build(*args); });
}

}  // namespace rp::cli
