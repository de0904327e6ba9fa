#include "build/report.hpp"

#include <chrono>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "inventory/diff.hpp"
#include "inventory/inventory.hpp"
#include "registry/referrers.hpp"
#include "transports/location.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp::build {

namespace {

constexpr uint64_t kMaxReportBytes = 16u << 20;  // as report::parse_report accepts

report::Package package_from_json(const nlohmann::json& j) {
  report::Package p;
  p.kind = parse_package_kind(j.value("kind", "")).value_or(PackageKind::kPython);  // inventory::diff wrote it
  p.name = j.value("name", "");
  p.version = j.value("version", "");
  return p;
}

// The previous build's duration, when its report is known and describes the previous image.
void set_duration_delta(report::Comparison& c, const report::Report& current, const std::optional<report::Report>& previous,
                        const std::string& from) {
  if (!previous) return;
  if (!c.previous_digest.empty() && previous->image_digest != c.previous_digest) {
    c.duration_note = "unknown: the report " + from + " describes " + previous->image_digest + ", not " + c.previous_digest;
    spdlog::warn("--compare-to: {}", c.duration_note);
    return;
  }
  c.duration_delta_s = current.totals.build_seconds - previous->totals.build_seconds;
  c.duration_note = "previous build " + std::to_string(static_cast<int64_t>(previous->totals.build_seconds + 0.5)) +
                    " s, from " + from;
}

}  // namespace

report::Report make_report(const ReportInputs& in) {
  const BuildPlan& plan = in.plan;
  report::Report r;
  r.recipe = plan.name;
  r.image_digest = in.sealed.manifest.digest;
  r.config_digest = in.sealed.config.digest;
  r.tags = plan.tags;
  r.source_date_epoch = plan.source_date_epoch;
  r.created = plan.created;
  r.base = plan.base_name;
  r.base_digest = plan.base_digest;
  r.compression = in.compression;
  r.tool_version = ROCKPACK_VERSION;
  r.outputs = in.outputs;
  r.pushed = in.pushed;

  // Steps in the order they ran; the layers each one planned are added to it below.
  std::map<std::string, size_t> step_index;
  for (const auto& t : in.timings.steps) {
    step_index[t.step] = r.steps.size();
    r.steps.push_back({t.step, t.seconds, 0, 0, 0, 0, 0, 0});
  }
  auto step_of = [&](const std::string& name) -> report::StepReport& {
    auto it = step_index.find(name);
    if (it == step_index.end()) {
      it = step_index.emplace(name, r.steps.size()).first;
      r.steps.push_back({name, 0, 0, 0, 0, 0, 0, 0});
    }
    return r.steps[it->second];
  };

  const size_t from_base = plan.base.layers.size();
  for (size_t i = 0; i < in.sealed.layers.size(); ++i) {
    const ImageLayer& layer = in.sealed.layers[i];
    report::LayerReport l;
    l.digest = layer.blob.digest;
    l.diff_id = layer.diff_id;
    l.size = static_cast<uint64_t>(layer.blob.size);
    r.totals.image_size += l.size;
    if (i < from_base) {
      l.step = "base";
      ++r.totals.layers_from_base;
      report::StepReport& s = step_of("base");
      ++s.layers;
      s.size += l.size;
    } else {
      const size_t n = i - from_base;
      const LayerPlan& planned = plan.layers.at(n);
      const BuiltLayer& built = in.assembled.new_layers.at(n);
      l.step = planned.step;
      l.name = planned.name;
      l.uncompressed_size = layer.uncompressed_size;
      l.entries = planned.entries.size();
      l.seconds = n < in.assembled.layer_seconds.size() ? in.assembled.layer_seconds[n] : 0;
      l.cache_hit = built.from_cache;
      r.totals.uncompressed_size += layer.uncompressed_size;
      ++(built.from_cache ? r.totals.layers_cached : r.totals.layers_built);
      report::StepReport& s = step_of(planned.step);
      ++s.layers;
      s.size += l.size;
      s.uncompressed_size += layer.uncompressed_size;
      s.entries += planned.entries.size();
      s.assemble_seconds += l.seconds;
      if (built.from_cache) ++s.cache_hits;
    }
    r.layers.push_back(std::move(l));
  }
  r.totals.layers = r.layers.size();
  r.totals.build_seconds = in.timings.build_seconds;
  r.totals.plan_seconds = in.timings.plan_seconds;
  r.totals.assemble_seconds = in.timings.assemble_seconds;
  r.totals.output_seconds = in.timings.output_seconds;
  r.totals.push_seconds = in.timings.push_seconds;

  for (const auto& planned : plan.components) {
    const ResolvedComponent& c = planned.component;
    r.packages.push_back({c.kind, c.name, c.version, c.layer});
  }
  return r;
}

CompareRequest check_compare_request(const std::string& compare_to, const std::string& compare_report_file) {
  CompareRequest out;
  out.previous = compare_to;
  if (compare_to.empty()) {
    if (!compare_report_file.empty())
      throw InputError("--compare-report needs --compare-to", "name the previous image with --compare-to REF");
    return out;
  }
  (void)transports::parse_location(compare_to);
  if (!compare_report_file.empty()) {
    std::error_code ec;
    const auto size = fs::file_size(compare_report_file, ec);
    if (ec) throw Error("cannot read --compare-report " + compare_report_file + ": " + ec.message(), "give the report file of the previous build");
    if (size > kMaxReportBytes)
      throw Error("--compare-report " + compare_report_file + " is " + std::to_string(size) + " bytes, more than a report can be",
                  "give the file `rockpack build --report` wrote for the previous image");
    out.previous_report = report::parse_report(read_file(compare_report_file), compare_report_file);
    out.previous_report_file = compare_report_file;
  }
  return out;
}

std::string report_cannot_cover(const report::Report& previous, const std::string& previous_digest, const BuildPlan& plan) {
  if (previous_digest.empty() || previous.image_digest != previous_digest)
    return "its report describes " + previous.image_digest + ", not " + (previous_digest.empty() ? "it" : previous_digest);
  if (previous.base_digest != plan.base_digest)
    return "it was built on another base (" + (previous.base_digest.empty() ? "scratch" : previous.base_digest) +
           "), whose packages no report lists";
  for (const auto& s : previous.steps)
    if (s.name == "run") return "it has run: steps, which can install what no report lists";
  for (const auto& l : plan.layers)
    if (l.step == "run") return "this build has run: steps, which can install what no report lists";
  return "";
}

PreviousImage load_previous(const CompareRequest& request, const BuildPlan& plan, const Platform& platform,
                            ContentStore& store, registry::Session& session) {
  auto started = std::chrono::steady_clock::now();
  PreviousImage out;
  if (request.previous_report) {
    out.report = request.previous_report;
    out.report_from = request.previous_report_file;
  }
  // Whether the report found so far lets the layers be skipped; sets why_layers when not.
  auto covered = [&](const std::string& digest) {
    out.why_layers = out.report ? report_cannot_cover(*out.report, digest, plan) : "no build report describes it";
    out.report_covers = out.why_layers.empty();
    return out.report_covers;
  };
  const transports::AnyLocation where = transports::parse_location(request.previous);
  bool done = false;
  // The manifest and config first when something may say what the image holds: --compare-report,
  // or a registry image's report referrer (a file has no referrers). An oci: layout's blobs are not
  // looked at; an archive is imported (one read gives both).
  if (out.report || !where.is_local()) {
    out.sourced = transports::load_image(where, platform, store, session, transports::Layers::kNone);
    const std::string& digest = out.sourced.manifest_digest;
    if (!out.report && !where.is_local()) {
      std::optional<std::string> bytes = registry::find_referrer_artifact(where.remote, digest, report::kArtifactType,
                                                                          store, session, kMaxReportBytes);
      if (bytes) {
        out.report = report::parse_report(*bytes, "the referrer of " + where.remote.name() + "@" + digest);
        out.report_from = "its report referrer";
      }
    }
    done = covered(digest) || out.sourced.has_layers;
  }
  if (!done) {
    // The layers the store lacks, a registry image's pulled by digest (the tag may move while the
    // build runs).
    out.sourced = transports::load_image(where.pinned(out.sourced.manifest_digest), platform, store, session);
    covered(out.sourced.manifest_digest);
  }
  out.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (out.report_covers)
    spdlog::info("--compare-to {}: packages from {} (no layer of it read)", request.previous, out.report_from);
  else
    spdlog::info("--compare-to {}: reading its layers ({})", request.previous, out.why_layers);
  return out;
}

namespace {

// A report's packages as the inventory names them: Debian and Python packages (the other
// components, an interpreter, are no packages an image lists), ROCm from the image's labels.
std::vector<inventory::Package> packages_of(const std::vector<report::Package>& packages, const Image& image) {
  std::vector<inventory::Package> out;
  for (const auto& p : packages) {
    switch (p.kind) {
      case PackageKind::kDeb:
      case PackageKind::kPython: break;
      // No package an image lists: an interpreter archive, the base; ROCm comes from the labels below.
      case PackageKind::kPythonInterpreter:
      case PackageKind::kBaseImage:
      case PackageKind::kRocm: continue;
    }
    inventory::Package q;
    q.kind = p.kind;
    q.name = p.name;
    q.version = p.version;
    out.push_back(std::move(q));
  }
  nlohmann::json config = image.config.is_object() ? image.config.value("config", nlohmann::json::object()) : nlohmann::json();
  if (!config.is_object()) config = nlohmann::json::object();
  for (auto& p : inventory::rocm_packages_from_labels(config.value("Labels", nlohmann::json::object())))
    out.push_back(std::move(p));
  return out;
}

}  // namespace

void compare_with_previous(report::Report& report, const Image& image, const PreviousImage& loaded,
                           const CompareRequest& request, ContentStore& store, registry::Session&) {
  report::Comparison c;
  c.previous = request.previous;
  const transports::SourcedImage& previous = loaded.sourced;
  c.previous_digest = previous.manifest_digest;

  inventory::Inventory before, after;
  if (loaded.report_covers) {
    before.config = nlohmann::json::object();  // only the packages are compared
    after.config = nlohmann::json::object();
    before.packages = packages_of(loaded.report->packages, previous.image);
    after.packages = packages_of(report.packages, image);
    c.packages_note = "from the two builds' reports (the previous one from " + loaded.report_from + "); no layer read";
  } else {
    // Both images' layers, read at once (a layer they share read once).
    const std::vector<fs::path>* in_place = previous.blob_paths.empty() ? nullptr : &previous.blob_paths;
    auto both = inventory::take_inventories({{&previous.image, in_place}, {&image, nullptr}}, store, false);
    before = std::move(both[0]);
    after = std::move(both[1]);
    c.packages_note = "from the layers of both images (" + loaded.why_layers + ")";
  }
  before.source = request.previous;
  before.manifest_digest = previous.manifest_digest;
  after.manifest_digest = report.image_digest;
  nlohmann::json d = inventory::diff(before, after);
  for (const auto& p : d["packages"]["added"]) c.added.push_back(package_from_json(p));
  for (const auto& p : d["packages"]["removed"]) c.removed.push_back(package_from_json(p));
  for (const auto& p : d["packages"]["changed"])
    c.changed.push_back({parse_package_kind(p.value("kind", "")).value_or(PackageKind::kPython), p.value("name", ""),
                         p.value("old", ""), p.value("new", "")});

  // Layers: one of this image's layers is reused when the previous image has one with its diff_id
  // (each previous layer counts once, as `rockpack diff` matches them).
  std::multiset<std::string> previous_layers;
  uint64_t previous_size = 0;
  for (const auto& l : previous.image.layers) {
    previous_layers.insert(l.diff_id);
    previous_size += static_cast<uint64_t>(l.blob.size);
  }
  for (auto& l : report.layers) {
    auto it = previous_layers.find(l.diff_id);
    l.in_previous = it != previous_layers.end();
    if (it != previous_layers.end()) {
      previous_layers.erase(it);
      ++c.layers_reused;
    } else {
      ++c.layers_rebuilt;
    }
  }
  c.size_delta_bytes = static_cast<int64_t>(report.totals.image_size) - static_cast<int64_t>(previous_size);

  // The previous build's time: from --compare-report, else from the previous image's referrer.
  if (loaded.report) set_duration_delta(c, report, loaded.report, loaded.report_from);
  else if (!transports::parse_location(request.previous).is_local())
    c.duration_note = "unknown: the previous image has no report referrer (give one with --compare-report FILE)";
  else
    c.duration_note = "unknown: the previous image is not in a registry (give its report with --compare-report FILE)";
  spdlog::info("compared with {}: {} package{} changed, {} added, {} removed; {} layer{} reused, {} rebuilt",
               request.previous, c.changed.size(), c.changed.size() == 1 ? "" : "s", c.added.size(), c.removed.size(),
               c.layers_reused, c.layers_reused == 1 ? "" : "s", c.layers_rebuilt);
  report.comparison = std::move(c);
}

void attach_report(const std::string& text, const SealedImage& image, const std::vector<Reference>& pushed_to,
                   ContentStore& store, registry::Session& session) {
  std::set<std::string> done;
  for (const auto& ref : pushed_to) {
    if (!done.insert(ref.name()).second) continue;  // one referrer per repository, not per tag
    registry::AttachedReferrer r = registry::attach_referrer(ref, image.manifest, report::kArtifactType, text, store, session);
    spdlog::info("attached the build report to {}@{} as {}{}", ref.name(), image.manifest.digest, r.digest,
                 r.used_tag_fallback ? " (referrers tag " + r.fallback_tag + ")" : "");
  }
}

}  // namespace rp::build
