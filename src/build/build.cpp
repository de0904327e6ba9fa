#include "build/build.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include "assemble/layer_builder.hpp"
#include "build/base.hpp"
#include "build/image_io.hpp"
#include "build/inputs.hpp"
#include "build/records.hpp"
#include "build/sbom.hpp"
#include "build/vcs_info.hpp"
#include "net/url.hpp"
#include "plan/lock_file.hpp"
#include "plan/steps.hpp"
#include "registry/push.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace rp::build {

namespace {

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

void emit(BuildContext& context, const std::string& event, const std::string& text, const nlohmann::json& fields) {
  if (context.event)
    context.event(event, text, fields);
  else
    spdlog::info("{}", text);
}

// The registry layer cache: a found layer stays in the registry (to be mounted) only when the
// image goes nowhere else than that registry; a local output needs its bytes.
void open_layer_cache(std::optional<registry::RegistryLayerCache>& cache, registry::LayerCacheOptions options,
                      bool local_outputs, const std::vector<Reference>& push_refs, BuildContext& context) {
  if (!options.from && !options.to) return;
  options.download = local_outputs || !options.from;
  for (const auto& r : push_refs)
    if (options.from && r.registry != options.from->registry) options.download = true;
  cache.emplace(options, context.store, context.session);
  cache->load();
}

// How many layers were built (and how many bytes went through the compressor), taken from the
// store, or from the registry cache: one "build.layers" event.
void report_layer_counts(BuildContext& context, const AssembledImage& assembled,
                         const registry::RegistryLayerCache* layer_cache) {
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
  emit(context, "build.layers", text, fields);
}

// Assemble: every planned layer built, or found in the store or the registry layer cache.
AssembledImage assemble_layers(const CheckedRequest& request, BuildContext& context, const PlannedBuild& planned,
                               registry::RegistryLayerCache* layer_cache, BuildTimings& timings) {
  const BuildRequest& r = request.request;
  LayerOptions layer_options{planned.compression, planned.plan.source_date_epoch, r.threads, !r.no_cache, layer_cache};
  LayerBuilder builder(context.store, layer_options, context.progress);
  auto phase = std::chrono::steady_clock::now();
  double cpu = cpu_seconds();
  if (planned.background) planned.background->wait();
  AssembledImage assembled = assemble_image(planned.plan, builder);
  // A layer written in the background during planning was built by this build, not found.
  if (planned.background)
    for (auto& l : assembled.new_layers)
      if (l.from_cache && !l.from_external_cache && planned.background->wrote(l.layer.blob.digest)) l.from_cache = false;
  report_layer_counts(context, assembled, layer_cache);
  timings.assemble_seconds = seconds_since(phase);
  log_stage("layers", timings.assemble_seconds, cpu_seconds() - cpu);
  return assembled;
}

// Output: the image into every -o destination.
void write_outputs(const std::vector<ImageLocation>& outputs, const BuildPlan& plan, const SealedImage& sealed,
                   BuildContext& context, BuildTimings& timings) {
  auto phase = std::chrono::steady_clock::now();
  double cpu = cpu_seconds();
  for (const auto& out : outputs) {
    write_image(sealed, context.store, out, {plan.name, plan.tags}, plan.source_date_epoch);
    spdlog::info("wrote {}", out.str());
  }
  timings.output_seconds = seconds_since(phase);
  log_stage("output", timings.output_seconds, cpu_seconds() - cpu);
}

// Push: the image to every --push reference; a layer the registry cache left in its registry is
// fetched only if a push needs its bytes.
std::vector<std::string> push_outputs(const std::vector<Reference>& push_refs, const SealedImage& sealed,
                                      BuildContext& context, registry::RegistryLayerCache* layer_cache,
                                      BuildTimings& timings) {
  if (push_refs.empty()) return {};
  registry::MissingBlobFetcher fetch_missing;
  if (layer_cache) fetch_missing = [layer_cache](const std::string& d) { layer_cache->fetch_into_store(d); };
  auto phase = std::chrono::steady_clock::now();
  registry::PushResult r = registry::push_image(sealed, context.store, push_refs, context.session, {}, fetch_missing);
  timings.push_seconds = seconds_since(phase);
  for (const auto& p : r.pushed) spdlog::info("pushed {}", p);
  emit(context, "build.push",
       fmt::format("push: {} blob{} uploaded ({}), {} mounted, {} already there", r.stats.blobs_uploaded,
                   r.stats.blobs_uploaded == 1 ? "" : "s", human_bytes(r.stats.bytes_uploaded), r.stats.blobs_mounted,
                   r.stats.blobs_existing),
       {{"blobs_uploaded", r.stats.blobs_uploaded},
        {"bytes_uploaded", r.stats.bytes_uploaded},
        {"blobs_mounted", r.stats.blobs_mounted},
        {"blobs_existing", r.stats.blobs_existing}});
  return r.pushed;
}

// Report: the SBOM and the build report made, compared with the previous image, attached to every
// pushed tag and written. `documents_seconds` gathers what they cost (made, rendered, written; not
// the comparison or the referrer pushes): logged with -v, the figure docs/provenance.md quotes.
void make_documents(const CheckedRequest& request, BuildContext& context, BuildResult& result,
                    const std::vector<Reference>& push_refs, const std::optional<PreviousImage>& previous,
                    const std::string& compression, double documents_seconds) {
  const BuildRequest& r = request.request;
  if (!push_refs.empty() && !r.sbom_file.empty())
    attach_sbom(result.sbom, r.sbom_format, result.sealed, push_refs, context.store, context.session);
  if (request.want_report) {
    auto phase = std::chrono::steady_clock::now();
    report::Report build_report = make_report(
        {result.plan, result.assembled, result.sealed, result.timings, compression, result.outputs, result.pushed});
    documents_seconds += seconds_since(phase);
    if (previous)
      compare_with_previous(build_report, result.assembled.image, *previous, request.compare, context.store,
                            context.session);
    phase = std::chrono::steady_clock::now();
    const std::string report_json = report::to_json_text(build_report);
    documents_seconds += seconds_since(phase);
    if (!push_refs.empty()) attach_report(report_json, result.sealed, push_refs, context.store, context.session);
    phase = std::chrono::steady_clock::now();
    if (!r.report_file.empty()) write_file_atomic(r.report_file, report_json);
    if (!r.report_markdown_file.empty()) write_file_atomic(r.report_markdown_file, report::to_markdown(build_report));
    documents_seconds += seconds_since(phase);
    result.report = std::move(build_report);
  }
  if (!r.sbom_file.empty() || request.want_report) {
    auto phase = std::chrono::steady_clock::now();
    if (!r.sbom_file.empty()) write_file_atomic(r.sbom_file, result.sbom);
    documents_seconds += seconds_since(phase);
    spdlog::debug("SBOM and report: {:.1f} ms to make and write ({} components, {} layers)", documents_seconds * 1000,
                  result.plan.components.size(), result.sealed.layers.size());
  }
}

}  // namespace

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

CheckedRequest check_request(BuildRequest request) {
  CheckedRequest c;
  c.started = std::chrono::steady_clock::now();
  const BuildRequest& r = request;
  // Checked before any work; the recipe's choice replaces the default once the recipe is loaded.
  c.compression = Compression::parse(r.compression.empty() ? "gzip" : r.compression);
  for (const auto& o : r.outputs) {
    c.outputs.push_back(ImageLocation::parse(o));
    // A docker archive's name must be a valid reference: checked before any work.
    if (!c.outputs.back().name.empty()) (void)parse_reference(c.outputs.back().name + ":" + c.outputs.back().tag);
  }
  if (!r.platform.empty()) c.platform = Platform::parse(r.platform);
  for (const auto& p : r.push) (void)parse_reference(p);  // bad references fail before any work
  if (!r.cache_from.empty()) c.cache.from = parse_reference(r.cache_from);
  if (!r.cache_to.empty()) c.cache.to = parse_reference(r.cache_to);
  check_sbom_format(r.sbom_format);
  c.want_report = !r.report_file.empty() || !r.report_markdown_file.empty();
  if (!r.compare_to.empty() && !c.want_report)
    throw InputError("--compare-to needs --report FILE or --report-markdown FILE", "the comparison is part of the build report");
  c.compare = check_compare_request(r.compare_to, r.compare_report_file);
  c.request = std::move(request);
  return c;
}

PlannedBuild plan_build(const CheckedRequest& request, BuildContext& context) {
  const BuildRequest& r = request.request;
  PlannedBuild planned;
  PlanOptions plan_options;
  VcsInfo vcs = detect_vcs(r.recipe == "-" ? fs::current_path() : fs::absolute(r.recipe).parent_path());
  plan_options.revision = r.revision.empty() ? vcs.revision : r.revision;
  plan_options.source = net::redact_credentials(r.source.empty() ? vcs.source : r.source);
  // A base other than scratch is pulled (or imported) into the store while planning; with --locked,
  // a registry base is pulled by its locked digest (the tag may have moved since).
  std::optional<LockFile> lock;
  if (r.locked || !r.lock_file.empty()) lock = read_lock_file(lock_path_for(r.recipe, r.lock_file, r.variant));
  plan_options.resolve_base = base_resolver(context.store, context.session, lock ? &*lock : nullptr);
  // Every step (plan/steps.cpp), in its order; with a dry run they resolve without downloading.
  StepRunOptions steps;
  steps.mode = r.dry_run ? StepMode::kResolve : StepMode::kBuild;
  steps.store = &context.store;
  steps.downloads.verify_tls = !r.insecure_downloads;
  steps.downloads.store_only = r.store_only;
  if (lock) steps.lock = LockUse{&*lock, lock_path_for(r.recipe, r.lock_file, r.variant), true, {}};
  steps.strict = r.strict;
  steps.timings = &planned.timings.steps;
  // Layers final before planning ends are written meanwhile (build/background_layers.hpp); not with
  // a registry layer cache, which the assembly asks first.
  if (!r.dry_run && !r.no_cache && r.cache_from.empty() && r.cache_to.empty()) {
    planned.background = std::make_shared<BackgroundLayers>(context.store, request.compression, !r.compression.empty(), r.threads);
    steps.prebuild = planned.background.get();
  }
  auto phase = std::chrono::steady_clock::now();
  double cpu = cpu_seconds();
  LoadedPlan loaded = load_and_plan(r.recipe, r.set, plan_options, request.platform, steps, r.allow_paths, r.variant);
  if (loaded.recipe.variant_count > 0 && !loaded.recipe.variant)
    throw InputError(r.recipe + " has " + std::to_string(loaded.recipe.variant_count) + " variants (matrix:)",
                     "pass --variant NAME for one or --all-variants for all; `rockpack matrix " + r.recipe + "` lists them");
  planned.timings.plan_seconds = seconds_since(phase);
  log_stage("plan", planned.timings.plan_seconds, cpu_seconds() - cpu);
  planned.compression = request.compression;
  if (r.compression.empty() && loaded.recipe.compression) planned.compression = Compression::parse(*loaded.recipe.compression);
  planned.recipe = std::move(loaded.recipe);
  planned.plan = std::move(loaded.plan);
  return planned;
}

BuildResult finish_build(const CheckedRequest& request, BuildContext& context, PlannedBuild planned) {
  const BuildRequest& r = request.request;
  BuildResult result;
  result.timings = std::move(planned.timings);
  std::vector<ImageLocation> outputs = request.outputs;
  if (outputs.empty() && r.push.empty()) outputs.push_back(ImageLocation::parse("oci:out/" + planned.plan.name));
  std::vector<Reference> push_refs = push_references(r.push, planned.plan.tags);
  spdlog::info("building {} ({} layer{}, {})", planned.plan.name, planned.plan.layers.size(),
               planned.plan.layers.size() == 1 ? "" : "s", planned.compression.str());

  std::optional<registry::RegistryLayerCache> layer_cache;
  open_layer_cache(layer_cache, request.cache, !outputs.empty(), push_refs, context);
  registry::RegistryLayerCache* cache = layer_cache ? &*layer_cache : nullptr;
  result.assembled = assemble_layers(request, context, planned, cache, result.timings);
  result.sealed = seal(result.assembled.image);
  // The previous image is read before any output or push could replace it; not part of the build's time.
  std::optional<PreviousImage> previous;
  if (!request.compare.previous.empty())
    previous = load_previous(request.compare, planned.plan, result.sealed.platform, context.store, context.session);
  // Made once: written next to the image and attached to every pushed tag.
  auto phase = std::chrono::steady_clock::now();
  if (!r.sbom_file.empty()) result.sbom = sbom_text(planned.plan, result.sealed, context.store, r.sbom_format);
  double documents_seconds = seconds_since(phase);

  write_outputs(outputs, planned.plan, result.sealed, context, result.timings);
  for (const auto& o : outputs) result.outputs.push_back(o.str());
  result.pushed = push_outputs(push_refs, result.sealed, context, cache, result.timings);
  if (layer_cache && request.cache.to) layer_cache->export_cache();
  // The build's duration: everything up to the image written and pushed; the SBOM, the report, the
  // comparison and the referrers come after and are not in it.
  result.timings.build_seconds = seconds_since(request.started) - (previous ? previous->load_seconds : 0);
  result.plan = std::move(planned.plan);
  make_documents(request, context, result, push_refs, previous, planned.compression.str(), documents_seconds);
  spdlog::info("image {} ({} layer{}) built in {:.1f}s", result.sealed.manifest.digest, result.sealed.layers.size(),
               result.sealed.layers.size() == 1 ? "" : "s", seconds_since(request.started));

  // Record: the machine-readable results.
  if (!r.metadata_file.empty()) write_metadata(r.metadata_file, result.plan, result.sealed, result.outputs, result.pushed);
  if (!r.resolved_file.empty()) write_resolved(r.resolved_file, result.plan, result.sealed);
  return result;
}

BuildResult build(BuildRequest request, BuildContext& context) {
  if (request.dry_run) throw InputError("build(): a dry run only plans", "call check_request and plan_build");
  CheckedRequest checked = check_request(std::move(request));
  return finish_build(checked, context, plan_build(checked, context));
}

}  // namespace rp::build
