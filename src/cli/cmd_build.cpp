// rockpack build: recipe -> plan -> assemble -> outputs.
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <sys/resource.h>

#include <chrono>

#include "plan/image_assembler.hpp"
#include "cli/build_family.hpp"
#include "cli/build_inputs.hpp"
#include "cli/build_report.hpp"
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
#include "transports/base_image.hpp"
#include "registry/layer_cache.hpp"
#include "registry/push.hpp"
#include "reference/reference.hpp"
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

// --all-variants: the flags a family build takes; the ones it does not are refused.
FamilyBuildArgs family_args(const BuildArgs& a) {
  const std::pair<bool, const char*> refused[] = {
      {!a.variant.empty(), "--variant"},       {!a.sbom_file.empty(), "--sbom"},
      {!a.resolved_file.empty(), "--resolved"}, {!a.compare_to.empty(), "--compare-to"},
      {a.locked || !a.lock_file.empty(), "--locked"}};
  for (const auto& [given, flag] : refused)
    if (given) throw InputError(std::string(flag) + " does not go with --all-variants", "build that variant alone with --variant NAME");
  return {a.recipe, a.set, a.allow_paths, a.outputs, a.push, a.cache_dir, a.compression, a.threads, a.no_cache,
          a.revision, a.source, a.metadata_file, a.report_file, a.report_markdown_file, a.insecure_downloads, a.strict,
          a.cache_from, a.cache_to, a.platform, a.dry_run, a.json, a.store_only, a.keep_going, a.registry};
}

// --push REF: a reference without tag or digest gets every recipe tag (or :latest when it has none).
std::vector<Reference> push_references(const std::vector<std::string>& args,
                                                 const std::vector<std::string>& recipe_tags) {
  std::vector<Reference> out;
  for (const auto& a : args) {
    Reference ref = parse_reference(a);
    if (ref.has_tag() || ref.has_digest() || recipe_tags.empty()) {
      out.push_back(ref);
    } else {
      for (const auto& t : recipe_tags) out.push_back(ref.with_tag(t));
    }
  }
  return out;
}

// How many layers were built (and how many bytes went through the compressor), taken from the
// store, or from the registry cache: one line, or one "build.layers" event with --log-format json.
void log_layer_counts(const AssembledImage& assembled, const registry::RegistryLayerCache* layer_cache) {
  size_t built = 0, from_store = 0, from_registry = 0;
  uint64_t bytes_compressed = 0;
  for (const auto& l : assembled.new_layers) {
    if (l.from_external_cache) {
      ++from_registry;
    } else if (l.from_cache) {
      ++from_store;
    } else {
      ++built;
      bytes_compressed += l.layer.uncompressed_size;
    }
  }
  nlohmann::json fields = {{"layers", assembled.new_layers.size()},
                           {"built", built},
                           {"from_store", from_store},
                           {"from_registry_cache", from_registry},
                           {"bytes_compressed", bytes_compressed}};
  std::string text = fmt::format("layers: {} built ({} compressed), {} from the store, {} from the registry cache",
                                 built, human_bytes(bytes_compressed), from_store, from_registry);
  if (layer_cache) {
    registry::LayerCacheCounts c = layer_cache->counts();
    fields["registry_cache_listed"] = c.listed;
    fields["registry_cache_skipped"] = c.skipped;
    fields["registry_cache_downloaded"] = c.downloaded;
    fields["registry_cache_bytes_downloaded"] = c.bytes_downloaded;
    text += fmt::format(" ({} downloaded, {}; {} listed, {} skipped)", c.downloaded, human_bytes(c.bytes_downloaded),
                        c.listed, c.skipped);
  }
  log_event("build.layers", text, fields);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU seconds of every thread so far: with the wall time of a stage, how many cores it kept busy
// (the debug lines bench/rocm_bench.sh --scaling reads).
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}
void log_stage(const char* stage, double wall, double cpu) {
  spdlog::debug("stage {}: {:.2f} s wall, {:.2f} s CPU ({:.2f} cores busy)", stage, wall, cpu, wall > 0 ? cpu / wall : 0.0);
}

void run_build(const BuildArgs& args) {
  // `plan` (and --dry-run) without --variant shows every variant of a recipe with a matrix:.
  if (args.all_variants || (args.dry_run && args.variant.empty() && recipe_has_variants(args.recipe, args.set)))
    return run_family_build(family_args(args));
  if (args.keep_going) throw InputError("--keep-going goes with --all-variants");
  auto started = std::chrono::steady_clock::now();
  BuildTimings timings;
  // Checked before any work; the recipe's choice replaces the default once the recipe is loaded.
  Compression compression = Compression::parse(args.compression.empty() ? "gzip" : args.compression);
  std::vector<ImageLocation> outputs;
  for (const auto& o : args.outputs) {
    outputs.push_back(ImageLocation::parse(o));
    // A docker archive's name must be a valid reference: checked before any work.
    if (!outputs.back().name.empty()) (void)parse_reference(outputs.back().name + ":" + outputs.back().tag);
  }
  std::optional<Platform> platform_override;
  if (!args.platform.empty()) platform_override = Platform::parse(args.platform);
  for (const auto& p : args.push) (void)parse_reference(p);  // bad references fail before any work
  registry::LayerCacheOptions cache_options;
  if (!args.cache_from.empty()) cache_options.from = parse_reference(args.cache_from);
  if (!args.cache_to.empty()) cache_options.to = parse_reference(args.cache_to);
  check_sbom_format(args.sbom_format);
  const bool want_report = !args.report_file.empty() || !args.report_markdown_file.empty();
  if (!args.compare_to.empty() && !want_report)
    throw InputError("--compare-to needs --report FILE or --report-markdown FILE", "the comparison is part of the build report");
  const CompareRequest compare = check_compare_request(args.compare_to, args.compare_report_file);

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
  plan_options.resolve_base = [&store, &session, &lock](const std::string& base, const Platform& platform,
                                                        const RootfsView::KeepContent& keep) {
    // --locked: a registry base is pulled by its locked digest (the tag may have moved since).
    if (lock) return resolve_locked_base(base, lock->base_digest, platform, store, session, keep);
    return transports::resolve_base(base, platform, store, session, keep);
  };
  // Every step (plan/steps.cpp), in its order; with --dry-run they resolve without downloading.
  StepRunOptions steps;
  steps.mode = args.dry_run ? StepMode::kResolve : StepMode::kBuild;
  steps.store = &store;
  steps.downloads.verify_tls = !args.insecure_downloads;
  steps.downloads.store_only = args.store_only;
  if (lock) steps.lock = LockUse{&*lock, lock_path_for(args.recipe, args.lock_file), true, {}};
  steps.strict = args.strict;
  steps.timings = &timings.steps;
  auto phase = std::chrono::steady_clock::now();
  double cpu = cpu_seconds();
  LoadedPlan loaded = load_and_plan(args.recipe, args.set, plan_options, platform_override, steps, args.allow_paths, args.variant);
  if (loaded.recipe.variant_count > 0 && !loaded.recipe.variant)
    throw InputError(args.recipe + " has " + std::to_string(loaded.recipe.variant_count) + " variants (matrix:)",
                     "pass --variant NAME for one or --all-variants for all; `rockpack matrix " + args.recipe + "` lists them");
  timings.plan_seconds = seconds_since(phase);
  log_stage("plan", timings.plan_seconds, cpu_seconds() - cpu);
  BuildPlan plan = std::move(loaded.plan);
  if (args.compression.empty() && loaded.recipe.compression) compression = Compression::parse(*loaded.recipe.compression);
  if (args.dry_run) {
    print_plan(plan, store, compression, args.json);
    return;
  }
  if (outputs.empty() && args.push.empty()) outputs.push_back(ImageLocation::parse("oci:out/" + plan.name));
  std::vector<Reference> push_refs = push_references(args.push, plan.tags);
  spdlog::info("building {} ({} layer{}, {})", plan.name, plan.layers.size(), plan.layers.size() == 1 ? "" : "s",
               compression.str());

  // The registry layer cache: a found layer stays in the registry (to be mounted) only when the
  // image goes nowhere else than that registry; a local output needs its bytes.
  std::optional<registry::RegistryLayerCache> layer_cache;
  if (cache_options.from || cache_options.to) {
    cache_options.download = !outputs.empty() || !cache_options.from;
    for (const auto& r : push_refs)
      if (cache_options.from && r.registry != cache_options.from->registry) cache_options.download = true;
    layer_cache.emplace(cache_options, store, session);
    layer_cache->load();
  }

  LayerOptions layer_options{compression, plan.source_date_epoch, args.threads, !args.no_cache,
                             layer_cache ? &*layer_cache : nullptr};
  LayerBuilder builder(store, layer_options, &progress);
  phase = std::chrono::steady_clock::now();
  cpu = cpu_seconds();
  AssembledImage assembled = assemble_image(plan, builder);
  log_layer_counts(assembled, layer_cache ? &*layer_cache : nullptr);
  timings.assemble_seconds = seconds_since(phase);
  log_stage("layers", timings.assemble_seconds, cpu_seconds() - cpu);
  SealedImage sealed = seal(assembled.image);
  // The previous image is read before any output or push could replace it; not part of the build's time.
  std::optional<PreviousImage> previous;
  if (!compare.previous.empty()) previous = load_previous(compare, plan, sealed.platform, store, session);
  // What the SBOM and the report cost a build (made, rendered, written; not the comparison or the
  // referrer pushes): logged with -v, the figure docs/provenance.md quotes.
  double documents_seconds = 0;
  phase = std::chrono::steady_clock::now();
  // Made once: written next to the image and attached to every pushed tag.
  const std::string sbom = args.sbom_file.empty() ? std::string() : sbom_text(plan, sealed, store, args.sbom_format);
  documents_seconds += seconds_since(phase);

  phase = std::chrono::steady_clock::now();
  cpu = cpu_seconds();
  for (const auto& out : outputs) {
    write_image(sealed, store, out, {plan.name, plan.tags}, plan.source_date_epoch);
    spdlog::info("wrote {}", out.str());
  }
  timings.output_seconds = seconds_since(phase);
  log_stage("output", timings.output_seconds, cpu_seconds() - cpu);
  std::vector<std::string> pushed;
  if (!push_refs.empty()) {
    registry::MissingBlobFetcher fetch_missing;
    if (layer_cache) fetch_missing = [&layer_cache](const std::string& d) { layer_cache->fetch_into_store(d); };
    phase = std::chrono::steady_clock::now();
    registry::PushResult r = registry::push_image(sealed, store, push_refs, session, {}, fetch_missing);
    timings.push_seconds = seconds_since(phase);
    for (const auto& p : r.pushed) spdlog::info("pushed {}", p);
    log_event("build.push",
              fmt::format("push: {} blob{} uploaded ({}), {} mounted, {} already there", r.stats.blobs_uploaded,
                          r.stats.blobs_uploaded == 1 ? "" : "s", human_bytes(r.stats.bytes_uploaded),
                          r.stats.blobs_mounted, r.stats.blobs_existing),
              {{"blobs_uploaded", r.stats.blobs_uploaded},
               {"bytes_uploaded", r.stats.bytes_uploaded},
               {"blobs_mounted", r.stats.blobs_mounted},
               {"blobs_existing", r.stats.blobs_existing}});
    pushed = r.pushed;
  }
  if (layer_cache && cache_options.to) layer_cache->export_cache();
  // The build's duration: everything up to the image written and pushed; the SBOM, the report, the
  // comparison and the referrers come after and are not in it.
  timings.build_seconds = seconds_since(started) - (previous ? previous->load_seconds : 0);
  if (!push_refs.empty() && !args.sbom_file.empty()) attach_sbom(sbom, args.sbom_format, sealed, push_refs, store, session);
  if (want_report) {
    std::vector<std::string> output_names;
    for (const auto& o : outputs) output_names.push_back(o.str());
    phase = std::chrono::steady_clock::now();
    report::Report build_report = make_report({plan, assembled, sealed, timings, compression.str(), output_names, pushed});
    documents_seconds += seconds_since(phase);
    if (previous) compare_with_previous(build_report, assembled.image, *previous, compare, store, session);
    phase = std::chrono::steady_clock::now();
    const std::string report_json = report::to_json_text(build_report);
    documents_seconds += seconds_since(phase);
    if (!push_refs.empty()) attach_report(report_json, sealed, push_refs, store, session);
    phase = std::chrono::steady_clock::now();
    if (!args.report_file.empty()) write_file_atomic(args.report_file, report_json);
    if (!args.report_markdown_file.empty()) write_file_atomic(args.report_markdown_file, report::to_markdown(build_report));
    documents_seconds += seconds_since(phase);
  }
  if (!args.sbom_file.empty() || want_report) {
    phase = std::chrono::steady_clock::now();
    if (!args.sbom_file.empty()) write_file_atomic(args.sbom_file, sbom);
    documents_seconds += seconds_since(phase);
    spdlog::debug("SBOM and report: {:.1f} ms to make and write ({} components, {} layers)", documents_seconds * 1000,
                  plan.components.size(), sealed.layers.size());
  }
  double secs = seconds_since(started);
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
  cmd->add_option("--lock", args->lock_file, "The lock file for --locked (default RECIPE.lock); implies --locked");
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
