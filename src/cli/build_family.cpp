#include "cli/build_family.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "assemble/layer_builder.hpp"
#include "build/image_io.hpp"
#include "build/inputs.hpp"
#include "build/report.hpp"
#include "build/sbom.hpp"
#include "build/variant_files.hpp"
#include "build/vcs_info.hpp"
#include "cli/family.hpp"
#include "cli/logging.hpp"
#include "cli/plan_output.hpp"
#include "cli/progress_display.hpp"
#include "net/url.hpp"
#include "output/output_spec.hpp"
#include "plan/image_assembler.hpp"
#include "plan/lock_file.hpp"
#include "plan/plan.hpp"
#include "plan/steps.hpp"
#include "build/base.hpp"
#include "registry/layer_cache.hpp"
#include "registry/push.hpp"
#include "reference/reference.hpp"
#include "report/report.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp::cli {

namespace {

double family_seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What one variant's layers cost: built (compressed here), from the store, from the registry cache.
struct LayerCounts {
  size_t built = 0, from_store = 0, from_registry = 0;
  uint64_t bytes_compressed = 0;
  std::vector<std::string> built_digests;
};

LayerCounts count_layers(const AssembledImage& assembled) {
  LayerCounts c;
  for (const auto& l : assembled.new_layers) {
    if (l.from_external_cache) {
      ++c.from_registry;
    } else if (l.from_cache) {
      ++c.from_store;
    } else {
      ++c.built;
      c.bytes_compressed += l.layer.uncompressed_size;
      c.built_digests.push_back(l.layer.blob.digest);
    }
  }
  return c;
}

struct VariantBuild {
  FamilyMember member;
  bool built = false;
  std::string error;  // when it failed
  bool input_error = false;  // the failure was bad input (a stale lock, a bad reference): exit 2
  std::optional<BuildPlan> plan;
  std::optional<AssembledImage> assembled;
  std::optional<SealedImage> sealed;
  build::BuildTimings timings;
  LayerCounts counts;
  std::string compression;  // as the report names it ("gzip", "zstd:10")
  std::vector<std::string> pushed;
  registry::PushStats push_stats;
  // Per variant, read before any work: its lock (--locked) and what it is compared with (--compare-to).
  std::optional<LockFile> lock;
  std::string lock_path;
  std::optional<build::CompareRequest> compare;
  // Made once it is built, before anything is written or pushed.
  std::optional<build::PreviousImage> previous;  // read before a push could move the tag it names
  std::string sbom;                       // --sbom: the document's text
  std::optional<report::Report> report;   // --report/--report-markdown: its build report
};

// The shared setup of every variant: store, session, layer cache, options.
struct FamilyContext {
  const FamilyBuildArgs& args;
  ContentStore& store;
  registry::Session& session;
  ProgressDisplay& progress;
  std::optional<Platform> platform;
  registry::RegistryLayerCache* layer_cache = nullptr;
  PlanOptions plan_options;
  nlohmann::json plans = nlohmann::json::array();  // dry run with --json: every variant's plan
};

// --push REPO: each variant with its own tags (a reference with a tag is refused up front).
std::vector<Reference> variant_push_refs(const std::vector<std::string>& push, const std::vector<std::string>& tags) {
  std::vector<Reference> out;
  for (const auto& p : push) {
    Reference ref = parse_reference(p);
    if (tags.empty()) out.push_back(ref.with_tag("latest"));
    for (const auto& t : tags) out.push_back(ref.with_tag(t));
  }
  return out;
}

void build_variant(FamilyContext& ctx, VariantBuild& v, size_t index, size_t count) {
  const FamilyBuildArgs& args = ctx.args;
  auto started = std::chrono::steady_clock::now();
  log_event("build.variant.start",
            fmt::format("variant {}/{} {} ({})", index + 1, count, v.member.name, args_text(v.member.args)),
            {{"variant", v.member.name}, {"index", index + 1}, {"count", count}});
  StepRunOptions steps;
  steps.mode = args.dry_run ? StepMode::kResolve : StepMode::kBuild;
  steps.store = &ctx.store;
  steps.downloads.verify_tls = !args.insecure_downloads;
  steps.downloads.store_only = args.store_only;
  steps.strict = args.strict;
  steps.timings = &v.timings.steps;
  PlanOptions plan_options = ctx.plan_options;
  if (v.lock) {
    // --locked: this variant's lock pins its files, and its base by digest (the tag may have moved since).
    steps.lock = LockUse{&*v.lock, v.lock_path, true, {}};
    plan_options.resolve_base = [&ctx, &v](const std::string& base, const Platform& p, const RootfsView::KeepContent& keep) {
      return build::resolve_base(base, p, ctx.store, ctx.session, keep, v.lock->base_digest);
    };
  }
  auto phase = std::chrono::steady_clock::now();
  build::LoadedPlan loaded = build::load_and_plan(args.recipe, args.set, plan_options, ctx.platform, steps, args.allow_paths,
                                    v.member.name);
  v.timings.plan_seconds = family_seconds_since(phase);
  Compression compression = Compression::parse(
      !args.compression.empty() ? args.compression : loaded.recipe.compression.value_or("gzip"));
  v.plan = std::move(loaded.plan);
  v.compression = compression.str();
  if (args.dry_run) {
    if (args.json) {
      nlohmann::json a = nlohmann::json::object();
      for (const auto& [k, val] : v.member.args) a[k] = val;
      ctx.plans.push_back({{"variant", v.member.name}, {"args", a}, {"floating", v.member.floating},
                           {"plan", plan_json(*v.plan, ctx.store, compression)}});
    } else {
      std::printf("%s== variant %s (%s)\n", index ? "\n" : "", v.member.name.c_str(), args_text(v.member.args).c_str());
      print_plan(*v.plan, ctx.store, compression, false);
    }
    v.built = true;
    return;
  }
  LayerOptions layer_options{compression, v.plan->source_date_epoch, args.threads, !args.no_cache, ctx.layer_cache};
  LayerBuilder builder(ctx.store, layer_options, &ctx.progress);
  phase = std::chrono::steady_clock::now();
  v.assembled = assemble_image(*v.plan, builder);
  v.timings.assemble_seconds = family_seconds_since(phase);
  v.sealed = seal(v.assembled->image);
  v.counts = count_layers(*v.assembled);
  v.timings.build_seconds = family_seconds_since(started);
  // The previous image is read now, before any variant is written or pushed (a push of the family could
  // move the tag it names); the SBOM is made now so that a variant whose SBOM fails is a failed variant.
  if (v.compare && !v.compare->previous.empty())
    v.previous = build::load_previous(*v.compare, *v.plan, v.sealed->platform, ctx.store, ctx.session);
  if (!args.sbom_file.empty()) v.sbom = build::sbom_text(*v.plan, *v.sealed, ctx.store, args.sbom_format);
  v.built = true;
  log_event("build.variant",
            fmt::format("variant {} built: {} in {:.1f}s; layers: {} built ({} compressed), {} from the store, {} from "
                        "the registry cache",
                        v.member.name, v.sealed->manifest.digest, v.timings.build_seconds, v.counts.built,
                        human_bytes(v.counts.bytes_compressed), v.counts.from_store, v.counts.from_registry),
            {{"variant", v.member.name},
             {"digest", v.sealed->manifest.digest},
             {"built", v.counts.built},
             {"from_store", v.counts.from_store},
             {"from_registry_cache", v.counts.from_registry},
             {"bytes_compressed", v.counts.bytes_compressed},
             {"seconds", v.timings.build_seconds}});
}

// Every built variant into every output and registry: outputs first (one layout gets every
// variant's tags), then the pushes (a blob an earlier variant pushed is found there, not sent again).
void deliver(FamilyContext& ctx, std::vector<VariantBuild>& variants, const std::vector<ImageLocation>& outputs,
             registry::PushStats& totals) {
  for (auto& v : variants) {
    if (!v.built) continue;
    for (const auto& out : outputs) {
      build::write_image(*v.sealed, ctx.store, out, {v.plan->name, v.plan->tags}, v.plan->source_date_epoch);
      spdlog::info("wrote {} ({})", out.str(), v.member.name);
    }
  }
  if (ctx.args.push.empty()) return;
  registry::MissingBlobFetcher fetch_missing;
  if (ctx.layer_cache) fetch_missing = [&ctx](const std::string& d) { ctx.layer_cache->fetch_into_store(d); };
  for (auto& v : variants) {
    if (!v.built) continue;
    auto started = std::chrono::steady_clock::now();
    registry::PushResult r = registry::push_image(*v.sealed, ctx.store, variant_push_refs(ctx.args.push, v.plan->tags),
                                                  ctx.session, {}, fetch_missing);
    v.timings.push_seconds = family_seconds_since(started);
    v.pushed = r.pushed;
    v.push_stats = r.stats;
    for (const auto& p : r.pushed) spdlog::info("pushed {}", p);
    totals.blobs_uploaded += r.stats.blobs_uploaded;
    totals.bytes_uploaded += r.stats.bytes_uploaded;
    totals.blobs_mounted += r.stats.blobs_mounted;
    totals.blobs_existing += r.stats.blobs_existing;
  }
  log_event("build.push",
            fmt::format("push (family): {} blob{} uploaded ({}), {} mounted, {} already there", totals.blobs_uploaded,
                        totals.blobs_uploaded == 1 ? "" : "s", human_bytes(totals.bytes_uploaded), totals.blobs_mounted,
                        totals.blobs_existing),
            {{"blobs_uploaded", totals.blobs_uploaded},
             {"bytes_uploaded", totals.bytes_uploaded},
             {"blobs_mounted", totals.blobs_mounted},
             {"blobs_existing", totals.blobs_existing}});
}

nlohmann::json family_report(const std::vector<VariantBuild>& variants, const std::string& name,
                             const std::vector<std::string>& outputs, const registry::PushStats& push, double seconds) {
  nlohmann::json list = nlohmann::json::array();
  std::set<std::string> distinct;
  uint64_t distinct_bytes = 0, image_bytes = 0, bytes_compressed = 0;
  size_t layers_built = 0, failed = 0, built = 0;
  for (const auto& v : variants) {
    nlohmann::json j = {{"name", v.member.name}, {"tags", v.member.tags}, {"floating", v.member.floating}};
    nlohmann::json a = nlohmann::json::object();
    for (const auto& [k, val] : v.member.args) a[k] = val;
    j["args"] = a;
    j["status"] = v.built ? "built" : v.error.empty() ? "not built" : "failed";
    if (!v.error.empty()) j["error"] = v.error;
    if (v.built && v.sealed) {
      ++built;
      j["manifest_digest"] = v.sealed->manifest.digest;
      j["layers"] = {{"built", v.counts.built},
                     {"from_store", v.counts.from_store},
                     {"from_registry_cache", v.counts.from_registry},
                     {"bytes_compressed", v.counts.bytes_compressed},
                     {"built_digests", v.counts.built_digests}};
      j["seconds"] = v.timings.build_seconds;
      j["pushed"] = v.pushed;
      layers_built += v.counts.built;
      bytes_compressed += v.counts.bytes_compressed;
      for (const auto& l : v.sealed->layers) {
        image_bytes += static_cast<uint64_t>(l.blob.size);
        if (distinct.insert(l.blob.digest).second) distinct_bytes += static_cast<uint64_t>(l.blob.size);
      }
      const report::Report r =
          v.report ? *v.report : build::make_report({*v.plan, *v.assembled, *v.sealed, v.timings, v.compression, outputs, v.pushed});
      j["report"] = nlohmann::json::parse(report::to_json_text(r));
    } else if (!v.error.empty()) {
      ++failed;
    }
    list.push_back(std::move(j));
  }
  return {{"rockpack_family_report", 1},
          {"name", name},
          {"variants", list},
          {"totals",
           {{"variants", variants.size()},
            {"built", built},
            {"failed", failed},
            {"layers_built", layers_built},
            {"bytes_compressed", bytes_compressed},
            {"distinct_layers", distinct.size()},
            {"distinct_bytes", distinct_bytes},
            {"image_bytes", image_bytes},
            {"seconds", seconds},
            {"push",
             {{"blobs_uploaded", push.blobs_uploaded},
              {"bytes_uploaded", push.bytes_uploaded},
              {"blobs_mounted", push.blobs_mounted},
              {"blobs_existing", push.blobs_existing}}}}}};
}

std::string family_markdown(const nlohmann::json& report) {
  std::string md = "# " + report["name"].get<std::string>() + ": " + std::to_string(report["variants"].size()) + " variants\n\n";
  md += "| variant | args | status | digest | layers built | from store | tags |\n|---|---|---|---|---|---|---|\n";
  for (const auto& v : report["variants"]) {
    std::string args;
    for (const auto& [k, val] : v["args"].items()) args += (args.empty() ? "" : " ") + k + "=" + val.get<std::string>();
    std::string tags;
    for (const auto& t : v["tags"]) tags += (tags.empty() ? "" : ", ") + ("`" + t.get<std::string>() + "`");
    std::string status = v["status"].get<std::string>();
    if (v.contains("error")) status += ": " + v["error"].get<std::string>();
    md += "| " + v["name"].get<std::string>() + " | " + args + " | " + status + " | " +
          (v.contains("manifest_digest") ? "`" + v["manifest_digest"].get<std::string>().substr(0, 19) + "`" : "-") + " | " +
          (v.contains("layers") ? std::to_string(v["layers"]["built"].get<size_t>()) : "-") + " | " +
          (v.contains("layers") ? std::to_string(v["layers"]["from_store"].get<size_t>()) : "-") + " | " + tags + " |\n";
  }
  const auto& t = report["totals"];
  md += fmt::format("\n{} layers built ({} through the compressor); {} distinct layers, {} for the family against {} "
                    "for its images one by one; {:.1f}s.\n",
                    t["layers_built"].get<size_t>(), human_bytes(t["bytes_compressed"].get<uint64_t>()),
                    t["distinct_layers"].get<size_t>(), human_bytes(t["distinct_bytes"].get<uint64_t>()),
                    human_bytes(t["image_bytes"].get<uint64_t>()), t["seconds"].get<double>());
  return md;
}

// With --compare-to: after the family's table, each variant's own report (as `build --variant
// --report-markdown` writes it), with its deltas against its previous image.
std::string variant_reports_markdown(const std::vector<VariantBuild>& variants) {
  std::string md;
  for (const auto& v : variants)
    if (v.report) md += "\n## " + v.member.name + "\n" + report::to_markdown(*v.report);
  return md;
}

// The per-variant documents of the variants that were delivered: the report (with its comparison)
// and the SBOM attached to every tag the variant was pushed to, and --sbom/--resolved written.
void finish_variants(FamilyContext& ctx, std::vector<VariantBuild>& variants, const std::vector<std::string>& output_names,
                     bool want_report) {
  const FamilyBuildArgs& args = ctx.args;
  for (auto& v : variants) {
    if (!v.built) continue;
    const std::vector<Reference> pushed_to =
        v.pushed.empty() ? std::vector<Reference>{} : variant_push_refs(args.push, v.plan->tags);
    if (!pushed_to.empty() && !args.sbom_file.empty()) build::attach_sbom(v.sbom, args.sbom_format, *v.sealed, pushed_to, ctx.store, ctx.session);
    if (want_report) {
      v.report = build::make_report({*v.plan, *v.assembled, *v.sealed, v.timings, v.compression, output_names, v.pushed});
      if (v.previous) build::compare_with_previous(*v.report, v.assembled->image, *v.previous, *v.compare, ctx.store, ctx.session);
      if (!pushed_to.empty()) build::attach_report(report::to_json_text(*v.report), *v.sealed, pushed_to, ctx.store, ctx.session);
    }
    if (!args.sbom_file.empty()) write_file_atomic(build::per_variant_path(args.sbom_file, v.member.name), v.sbom);
    if (!args.resolved_file.empty()) {
      nlohmann::json resolved = {{"rockpack_resolution", 1}, {"name", v.plan->name}, {"variant", v.member.name},
                                 {"image", v.sealed->manifest.digest}};
      resolved.update(resolution_json(*v.plan));
      write_file_atomic(build::per_variant_path(args.resolved_file, v.member.name), resolved.dump(2) + "\n");
    }
  }
}

// --sbom, --resolved, --compare-to, --compare-report and --lock name one file or image per variant:
// each needs {variant} (checked before any work, as every other flag).
void check_per_variant_flags(const FamilyBuildArgs& args) {
  if (!args.sbom_file.empty()) {
    build::check_sbom_format(args.sbom_format);
    build::require_variant_placeholder("--sbom", args.sbom_file, "out/sbom-{variant}.spdx.json");
  }
  if (!args.resolved_file.empty()) build::require_variant_placeholder("--resolved", args.resolved_file, "out/resolved-{variant}.json");
  if (!args.compare_to.empty()) {
    build::require_variant_placeholder("--compare-to", args.compare_to, "ghcr.io/me/app:latest-{variant}");
    if (args.report_file.empty() && args.report_markdown_file.empty())
      throw InputError("--compare-to needs --report FILE or --report-markdown FILE", "the comparison is part of the build report");
  }
  if (!args.compare_report_file.empty()) {
    if (args.compare_to.empty()) throw InputError("--compare-report goes with --compare-to");
    build::require_variant_placeholder("--compare-report", args.compare_report_file, "previous/report-{variant}.json");
  }
  if (!args.lock_file.empty()) build::require_variant_placeholder("--lock", args.lock_file, "locks/{variant}.lock");
}

}  // namespace

void run_family_build(const FamilyBuildArgs& args) {
  auto started = std::chrono::steady_clock::now();
  // Every flag checked before any work, as a single build does.
  if (!args.compression.empty()) (void)Compression::parse(args.compression);
  std::vector<ImageLocation> outputs;
  for (const auto& o : args.outputs) {
    outputs.push_back(ImageLocation::parse(o));
    // An archive holds one image here; a layout holds the family.
    if (outputs.back().kind != ImageLocation::Kind::kOciLayout)
      throw InputError("--all-variants: output " + o + " is an archive", "write the family to an OCI layout: -o oci:DIR");
    if (!outputs.back().tag.empty())
      throw InputError("--all-variants: output " + o + " names a tag",
                       "each variant goes in with its own tags: give the output without one (e.g. oci:out/family)");
  }
  for (const auto& p : args.push) {
    Reference ref = parse_reference(p);
    if (ref.has_tag() || ref.has_digest())
      throw InputError("--all-variants: --push " + p + " names a tag or digest",
                       "each variant is pushed with its own tags: give the repository alone (e.g. ghcr.io/me/app)");
  }
  std::optional<Platform> platform;
  if (!args.platform.empty()) platform = Platform::parse(args.platform);
  check_per_variant_flags(args);
  std::vector<FamilyMember> members = load_family(args.recipe, args.set, args.allow_paths);
  if (members.empty())
    throw InputError("--all-variants: " + args.recipe + " has no matrix:, so no variants",
                     "add a matrix: (docs/recipe.md, \"Variants\"), or build without --all-variants");
  std::vector<VariantBuild> variants;
  for (auto& m : members) {
    variants.emplace_back();
    VariantBuild& v = variants.back();
    v.member = m;
    // Every variant's lock and previous image checked before any work: a missing lock (`rockpack lock
    // --all-variants` writes them) or a bad reference fails the family, not its third variant.
    if (args.locked) {
      v.lock_path = build::lock_path_for(args.recipe, args.lock_file, m.name);
      v.lock = read_lock_file(v.lock_path);
    }
    if (!args.compare_to.empty())
      v.compare = build::check_compare_request(build::per_variant_path(args.compare_to, m.name),
                                        args.compare_report_file.empty() ? std::string()
                                                                         : build::per_variant_path(args.compare_report_file, m.name));
  }

  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  registry::Session session(registry_options(args.registry));
  ProgressDisplay progress(ProgressDisplay::mode_for_stderr());

  FamilyContext ctx{args, store, session, progress, platform, nullptr, {}, nlohmann::json::array()};
  build::VcsInfo vcs = build::detect_vcs(fs::absolute(args.recipe).parent_path());
  ctx.plan_options.revision = args.revision.empty() ? vcs.revision : args.revision;
  ctx.plan_options.source = net::redact_credentials(args.source.empty() ? vcs.source : args.source);
  ctx.plan_options.resolve_base = build::base_resolver(store, session);
  // One registry layer cache for the family: loaded once, told every variant's layers, exported once.
  registry::LayerCacheOptions cache_options;
  if (!args.cache_from.empty()) cache_options.from = parse_reference(args.cache_from);
  if (!args.cache_to.empty()) cache_options.to = parse_reference(args.cache_to);
  std::optional<registry::RegistryLayerCache> layer_cache;
  if (!args.dry_run && (cache_options.from || cache_options.to)) {
    cache_options.download = !outputs.empty() || !cache_options.from || args.push.empty();
    for (const auto& p : args.push)
      if (cache_options.from && parse_reference(p).registry != cache_options.from->registry) cache_options.download = true;
    layer_cache.emplace(cache_options, store, session);
    layer_cache->load();
    ctx.layer_cache = &*layer_cache;
  }
  if (outputs.empty() && args.push.empty() && !args.dry_run)
    outputs.push_back(ImageLocation::parse("oci:out/" + recipe::load_recipe(args.recipe, build::load_options(args.set, members.front().name)).name));

  spdlog::info("building {} variant{}: {}", members.size(), members.size() == 1 ? "" : "s", [&] {
    std::string s;
    for (const auto& m : members) s += (s.empty() ? "" : ", ") + m.name;
    return s;
  }());
  std::vector<std::string> failed;
  for (size_t i = 0; i < variants.size(); ++i) {
    VariantBuild& v = variants[i];
    try {
      build_variant(ctx, v, i, variants.size());
    } catch (const std::exception& e) {
      v.error = e.what();
      v.input_error = dynamic_cast<const InputError*>(&e) != nullptr;
      if (const auto* err = dynamic_cast<const Error*>(&e); err && !err->hint().empty()) v.error += " (" + err->hint() + ")";
      failed.push_back(v.member.name);
      spdlog::error("variant {} failed: {}", v.member.name, v.error);
      log_event("build.variant.failed", "variant " + v.member.name + " failed", {{"variant", v.member.name}, {"error", v.error}});
      if (!args.keep_going) break;
    }
  }
  if (args.dry_run) {
    if (args.json) std::printf("%s\n", nlohmann::json{{"variants", ctx.plans}}.dump(2).c_str());
    for (const auto& v : variants)
      if (!v.error.empty()) throw Error("variant " + v.member.name + " failed to plan: " + v.error);
    return;
  }
  const std::string name = variants.front().plan ? variants.front().plan->name : members.front().name;
  registry::PushStats push_totals;
  // A failed variant keeps the whole family back, unless --keep-going.
  const bool delivered = failed.empty() || args.keep_going;
  if (delivered) deliver(ctx, variants, outputs, push_totals);
  if (layer_cache && cache_options.to && delivered) layer_cache->export_cache();

  double seconds = family_seconds_since(started);
  std::vector<std::string> output_names;
  for (const auto& o : outputs) output_names.push_back(o.str());
  const bool want_report = !args.report_file.empty() || !args.report_markdown_file.empty();
  if (delivered) finish_variants(ctx, variants, output_names, want_report);
  nlohmann::json report = family_report(variants, name, output_names, push_totals, seconds);
  if (!args.report_file.empty()) write_file_atomic(args.report_file, report.dump(2) + "\n");
  if (!args.report_markdown_file.empty())
    write_file_atomic(args.report_markdown_file,
                      family_markdown(report) + (args.compare_to.empty() ? "" : variant_reports_markdown(variants)));
  const auto& t = report["totals"];
  log_event("build.family",
            fmt::format("family {}: {} of {} variants built in {:.1f}s; {} layers built, {} distinct layers ({} vs {} "
                        "one by one)",
                        name, t["built"].get<size_t>(), variants.size(), seconds, t["layers_built"].get<size_t>(),
                        t["distinct_layers"].get<size_t>(), human_bytes(t["distinct_bytes"].get<uint64_t>()),
                        human_bytes(t["image_bytes"].get<uint64_t>())),
            t);
  if (!args.metadata_file.empty()) {
    nlohmann::json meta = {{"name", name}, {"variants", nlohmann::json::array()}};
    for (const auto& v : variants) {
      if (!v.sealed) continue;
      nlohmann::json layers = nlohmann::json::array();
      for (const auto& l : v.sealed->layers)
        layers.push_back({{"digest", l.blob.digest}, {"size", l.blob.size}, {"diff_id", l.diff_id}});
      meta["variants"].push_back({{"name", v.member.name},
                                  {"manifest_digest", v.sealed->manifest.digest},
                                  {"config_digest", v.sealed->config.digest},
                                  {"tags", v.plan->tags},
                                  {"floating", v.member.floating},
                                  {"pushed", v.pushed},
                                  {"layers", layers}});
    }
    write_file_atomic(args.metadata_file, meta.dump(2) + "\n");
  }
  if (!failed.empty()) {
    std::string names;
    for (const auto& f : failed) names += (names.empty() ? "" : ", ") + f;
    const VariantBuild& first = *std::find_if(variants.begin(), variants.end(), [](const VariantBuild& v) { return !v.error.empty(); });
    const bool all_input = std::all_of(variants.begin(), variants.end(), [](const VariantBuild& v) { return v.error.empty() || v.input_error; });
    const std::string message = "variant" + std::string(failed.size() == 1 ? " " : "s ") + names + " failed: " + first.error;
    const std::string hint = args.keep_going ? "the variants that built were written and pushed; the family is incomplete"
                                             : "nothing was written or pushed for the family; fix the variant, or pass "
                                               "--keep-going to deliver the others";
    if (all_input) throw InputError(message, hint);
    throw Error(message, hint);
  }
  for (const auto& v : variants) std::printf("%s %s\n", v.member.name.c_str(), v.sealed->manifest.digest.c_str());
}

bool recipe_has_variants(const std::string& recipe_file, const std::vector<std::string>& set_pairs) {
  if (recipe_file == "-") return false;
  return !recipe::list_variants(recipe_file, build::load_options(set_pairs)).empty();
}

}  // namespace rp::cli
