// rockpack build and rockpack plan: the flags, as a build::BuildRequest for the library build (src/build/).
#include <cstdio>

#include "build/build.hpp"
#include "cli/build_family.hpp"
#include "cli/commands.hpp"
#include "cli/logging.hpp"
#include "cli/plan_output.hpp"
#include "cli/progress_display.hpp"
#include "cli/registry_flags.hpp"
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
  std::string report_file;           // --report: the build report as JSON
  std::string report_markdown_file;  // --report-markdown: the same as Markdown
  std::string compare_to;            // --compare-to: the previous image the report compares with
  std::string compare_report_file;   // --compare-report: that image's report, when no referrer has it
  bool insecure_downloads = false;
  bool strict = false;
  std::vector<std::string> push;  // registry references (--push)
  std::string cache_from;         // --cache-from: a registry layer cache to take layers from
  std::string cache_to;           // --cache-to: where to push this build's layer cache
  std::string platform;           // empty: the recipe's
  bool dry_run = false;           // resolve every step and print the plan; write nothing
  bool json = false;              // with --dry-run: the plan as JSON
  bool locked = false;            // --locked: build from the lock file's pins only
  std::string lock_file;          // --lock FILE (default RECIPE.lock)
  bool store_only = false;        // --store-only: download nothing; every file must be in the store
  RegistryFlags registry;
  std::string variant;            // --variant NAME: one variant of the recipe's matrix:
  bool all_variants = false;      // --all-variants: the whole family (cli/build_family.cpp)
  bool keep_going = false;        // --keep-going: with --all-variants, deliver the variants that built
};

// --all-variants: the flags a family build takes (every one but --variant; the per-variant files and
// references are checked for their {variant} in run_family_build).
FamilyBuildArgs family_args(const BuildArgs& a) {
  if (!a.variant.empty()) throw InputError("--variant does not go with --all-variants", "pass one of them");
  FamilyBuildArgs f{a.recipe, a.set, a.allow_paths, a.outputs, a.push, a.cache_dir, a.compression, a.threads, a.no_cache,
                    a.revision, a.source, a.metadata_file, a.report_file, a.report_markdown_file, a.insecure_downloads, a.strict,
                    a.cache_from, a.cache_to, a.platform, a.dry_run, a.json, a.store_only, a.keep_going, a.registry};
  f.sbom_file = a.sbom_file;
  f.sbom_format = a.sbom_format;
  f.resolved_file = a.resolved_file;
  f.compare_to = a.compare_to;
  f.compare_report_file = a.compare_report_file;
  f.locked = a.locked || !a.lock_file.empty();
  f.lock_file = a.lock_file;
  return f;
}

// The library's request from the flags (src/build/build.hpp says what each does).
build::BuildRequest build_request(const BuildArgs& a) {
  build::BuildRequest r;
  r.recipe = a.recipe;
  r.set = a.set;
  r.allow_paths = a.allow_paths;
  r.variant = a.variant;
  r.platform = a.platform;
  r.revision = a.revision;
  r.source = a.source;
  r.insecure_downloads = a.insecure_downloads;
  r.strict = a.strict;
  r.store_only = a.store_only;
  r.locked = a.locked;
  r.lock_file = a.lock_file;
  r.dry_run = a.dry_run;
  r.compression = a.compression;
  r.threads = a.threads;
  r.no_cache = a.no_cache;
  r.cache_from = a.cache_from;
  r.cache_to = a.cache_to;
  r.outputs = a.outputs;
  r.push = a.push;
  r.metadata_file = a.metadata_file;
  r.resolved_file = a.resolved_file;
  r.sbom_file = a.sbom_file;
  r.sbom_format = a.sbom_format;
  r.report_file = a.report_file;
  r.report_markdown_file = a.report_markdown_file;
  r.compare_to = a.compare_to;
  r.compare_report_file = a.compare_report_file;
  return r;
}

void run_build(const BuildArgs& args) {
  // `plan` (and --dry-run) without --variant shows every variant of a recipe with a matrix:.
  if (args.all_variants || (args.dry_run && args.variant.empty() && recipe_has_variants(args.recipe, args.set)))
    return run_family_build(family_args(args));
  if (args.keep_going) throw InputError("--keep-going goes with --all-variants");
  const build::CheckedRequest request = build::check_request(build_request(args));  // every flag, before any work

  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  registry::Session session(registry_options(args.registry));
  // From here on: base and wheel downloads, layer compression and pushes report their progress.
  ProgressDisplay progress(ProgressDisplay::mode_for_stderr());
  build::BuildContext context{store, session, &progress, log_event};

  build::PlannedBuild planned = build::plan_build(request, context);
  if (args.dry_run) {
    print_plan(planned.plan, store, planned.compression, args.json);
    return;
  }
  build::BuildResult result = build::finish_build(request, context, std::move(planned));
  std::printf("%s\n", result.sealed.manifest.digest.c_str());
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
  cmd->add_option("--report", args->report_file,
                  "Write the build report here (JSON): per step and layer the sizes, entries, time and cache hits, "
                  "totals, packages; attached to the image as a referrer with --push");
  cmd->add_option("--report-markdown", args->report_markdown_file,
                  "Write the build report as Markdown here (for a GitHub step summary)");
  cmd->add_option("--compare-to", args->compare_to,
                  "Compare the report with a previous image (registry reference, oci:DIR:TAG, oci-archive: or "
                  "docker-archive:): packages changed, layers reused, size and time deltas");
  cmd->add_option("--compare-report", args->compare_report_file,
                  "The previous image's build report, when the registry has none attached (gives duration_delta_s)");
  cmd->add_flag("--insecure-downloads", args->insecure_downloads,
                "Do not verify TLS certificates of package indexes and download URLs");
  cmd->add_flag("--strict", args->strict,
                "Fail on integrity problems a build otherwise warns about: a wheel member whose bytes do not match "
                "the sha256 its RECORD lists (pip refuses such a wheel)");
  cmd->add_option("--push", args->push,
                  "Push the image to a registry: [registry/]name[:tag] (repeatable; without a tag, every recipe tag)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--platform", args->platform,
                  "Build for this platform (os/arch[/variant], e.g. linux/arm64); overrides the recipe's platform: key");
  cmd->add_flag("--dry-run", args->dry_run,
                "Resolve every step (base, packages, layers) and print the plan, as `rockpack plan` does; write no image");
  cmd->add_flag("--json", args->json, "With --dry-run: print the plan as JSON");
  cmd->add_option("--cache-from", args->cache_from,
                  "Take layers from this registry layer cache (registry/repo:tag, written by --cache-to) instead of "
                  "building them; an unreachable or damaged cache is a warning");
  cmd->add_option("--cache-to", args->cache_to,
                  "After the build, push its layer cache to this registry reference (an OCI artifact; "
                  "registry/repo without a tag is :buildcache)");
  cmd->add_flag("--locked", args->locked,
                "Build exactly what the lock file pins (base digest, every file by URL, sha256 and size); exit 2 when "
                "the recipe no longer matches it (see `rockpack lock`)");
  cmd->add_option("--lock", args->lock_file, "The lock file for --locked (default RECIPE.lock, RECIPE.VARIANT.lock for a variant; with "
                  "--all-variants a path with {variant}); implies --locked");
  cmd->add_flag("--store-only", args->store_only,
                "Download nothing: every file must already be in the store (with --locked, builds a lock whose files "
                "their index no longer has)");
  add_variant_flags(cmd, args->variant, args->all_variants);
  cmd->add_flag("--keep-going", args->keep_going,
                "With --all-variants: when a variant fails, build the others and write/push those (exit 1 still)");
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
  cmd->add_option("--variant", args->variant, "Plan one variant of the recipe's matrix: (default: every variant)");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_build(*args); });
}

}  // namespace rp::cli
