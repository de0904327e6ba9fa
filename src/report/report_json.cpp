// The report as JSON, and the reader of a report read back (untrusted: a previous image's referrer,
// or a file given with --compare-report).
#include <cmath>

#include <nlohmann/json.hpp>

#include "report/report.hpp"
#include "util/error.hpp"

namespace rp::report {

namespace {

using nlohmann::json;

constexpr size_t kMaxReportBytes = 16u << 20;

// Seconds and megabytes to the millisecond / two decimals: enough to read, stable to diff.
double round_to(double v, double unit) { return std::round(v / unit) * unit; }
double seconds(double s) { return round_to(s, 0.001); }

// `kind_name`: component_kind_name (the package list) or inventory_kind_name (a comparison).
json package_json(const Package& p, std::string_view (*kind_name)(PackageKind)) {
  json j = {{"kind", std::string(kind_name(p.kind))}, {"name", p.name}, {"version", p.version}};
  if (!p.layer.empty()) j["layer"] = p.layer;
  return j;
}

json layer_json(const LayerReport& l) {
  json j = {{"step", l.step},     {"digest", l.digest},         {"diff_id", l.diff_id}, {"size", l.size},
            {"seconds", seconds(l.seconds)}, {"cache_hit", l.cache_hit}, {"from_base", l.step == "base"}};
  if (!l.name.empty()) j["name"] = l.name;
  j["uncompressed_size"] = l.uncompressed_size ? json(*l.uncompressed_size) : json();
  j["entries"] = l.entries ? json(*l.entries) : json();
  if (l.in_previous) j["in_previous"] = *l.in_previous;
  return j;
}

json step_json(const StepReport& s) {
  return {{"name", s.name},
          {"plan_seconds", seconds(s.plan_seconds)},
          {"assemble_seconds", seconds(s.assemble_seconds)},
          {"seconds", seconds(s.plan_seconds + s.assemble_seconds)},
          {"layers", s.layers},
          {"size", s.size},
          {"uncompressed_size", s.uncompressed_size},
          {"entries", s.entries},
          {"cache_hits", s.cache_hits},
          {"cache_hit", s.layers > 0 && s.cache_hits == s.layers}};
}

json totals_json(const Totals& t) {
  return {{"image_size", t.image_size},
          {"uncompressed_size", t.uncompressed_size},
          {"layers", t.layers},
          {"layers_from_base", t.layers_from_base},
          {"layers_cached", t.layers_cached},
          {"layers_built", t.layers_built},
          {"layers_reused", t.layers_from_base + t.layers_cached},
          {"build_seconds", seconds(t.build_seconds)},
          {"plan_seconds", seconds(t.plan_seconds)},
          {"assemble_seconds", seconds(t.assemble_seconds)},
          {"output_seconds", seconds(t.output_seconds)},
          {"push_seconds", seconds(t.push_seconds)}};
}

json comparison_json(const Comparison& c) {
  json j = {{"previous", c.previous},
            {"previous_digest", c.previous_digest},
            {"packages", {{"added", json::array()}, {"removed", json::array()}, {"changed", json::array()}}},
            {"layers_reused", c.layers_reused},
            {"layers_rebuilt", c.layers_rebuilt},
            {"size_delta_bytes", c.size_delta_bytes},
            {"size_delta_mb", megabytes(c.size_delta_bytes)},
            {"duration_delta_s", c.duration_delta_s ? json(seconds(*c.duration_delta_s)) : json()},
            {"duration_note", c.duration_note},
            {"packages_note", c.packages_note}};
  for (const auto& p : c.added) j["packages"]["added"].push_back(package_json(p, inventory_kind_name));
  for (const auto& p : c.removed) j["packages"]["removed"].push_back(package_json(p, inventory_kind_name));
  for (const auto& p : c.changed)
    j["packages"]["changed"].push_back({{"kind", std::string(inventory_kind_name(p.kind))}, {"name", p.name},
                                        {"old", p.old_version}, {"new", p.new_version}});
  return j;
}

// --- reading -----------------------------------------------------------------------------------

struct Reader {
  const std::string& where;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("the build report " + where + " is not valid: " + what,
                "it must be a report written by `rockpack build --report`; leave --compare-report out to compare "
                "without the previous build's times");
  }
  const json& object(const json& parent, const char* key, const std::string& path) const {
    auto it = parent.find(key);
    if (it == parent.end() || !it->is_object()) fail(path + key + " is missing or not an object");
    return *it;
  }
  std::string string(const json& parent, const char* key, const std::string& path, bool required = true) const {
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) {
      if (required) fail(path + key + " is missing");
      return {};
    }
    if (!it->is_string()) fail(path + key + " is not a string");
    return it->get<std::string>();
  }
  double number(const json& parent, const char* key, const std::string& path) const {
    auto it = parent.find(key);
    if (it == parent.end() || !it->is_number()) fail(path + key + " is missing or not a number");
    double v = it->get<double>();
    if (!std::isfinite(v) || v < 0) fail(path + key + " is not a non-negative number");
    return v;
  }
  uint64_t count(const json& parent, const char* key, const std::string& path) const {
    auto it = parent.find(key);
    if (it == parent.end() || !it->is_number_unsigned()) fail(path + key + " is missing or not a non-negative integer");
    return it->get<uint64_t>();
  }
  const json& array(const json& parent, const char* key, const std::string& path) const {
    auto it = parent.find(key);
    if (it == parent.end() || !it->is_array()) fail(path + key + " is missing or not an array");
    return *it;
  }
};

}  // namespace

double megabytes(int64_t bytes) { return round_to(static_cast<double>(bytes) / 1e6, 0.01); }

std::string to_json_text(const Report& r) {
  json j = {{"rockpack_report", r.format},
            {"recipe", r.recipe},
            {"image_digest", r.image_digest},
            {"config_digest", r.config_digest},
            {"tags", r.tags},
            {"source_date_epoch", r.source_date_epoch},
            {"created", r.created},
            {"compression", r.compression},
            {"tool_version", r.tool_version},
            {"outputs", r.outputs},
            {"pushed", r.pushed},
            {"steps", json::array()},
            {"layers", json::array()},
            {"totals", totals_json(r.totals)},
            {"packages", json::array()}};
  if (!r.base.empty()) j["base"] = {{"name", r.base}, {"digest", r.base_digest}};
  for (const auto& s : r.steps) j["steps"].push_back(step_json(s));
  for (const auto& l : r.layers) j["layers"].push_back(layer_json(l));
  for (const auto& p : r.packages) j["packages"].push_back(package_json(p, component_kind_name));
  if (r.comparison) j["comparison"] = comparison_json(*r.comparison);
  return j.dump(2) + "\n";
}

Report parse_report(const std::string& text, const std::string& where) {
  Reader in{where};
  if (text.size() > kMaxReportBytes)
    in.fail("it is " + std::to_string(text.size()) + " bytes, more than a report can be (16 MiB)");
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) in.fail("it is not JSON");
  if (!j.is_object()) in.fail("it is not a JSON object");
  auto format = j.find("rockpack_report");
  if (format == j.end() || !format->is_number_integer()) in.fail("rockpack_report (the format version) is missing");
  if (format->get<int64_t>() < 1 || format->get<int64_t>() > kFormatVersion)
    in.fail("format " + format->dump() + " is not one this rockpack reads (1 to " + std::to_string(kFormatVersion) + ")");

  Report r;
  r.format = static_cast<int>(format->get<int64_t>());
  r.recipe = in.string(j, "recipe", "");
  r.image_digest = in.string(j, "image_digest", "");
  r.config_digest = in.string(j, "config_digest", "", false);
  r.created = in.string(j, "created", "", false);
  r.compression = in.string(j, "compression", "", false);
  r.tool_version = in.string(j, "tool_version", "", false);
  if (auto e = j.find("source_date_epoch"); e != j.end()) {
    if (!e->is_number_integer()) in.fail("source_date_epoch is not an integer");
    r.source_date_epoch = e->get<int64_t>();
  }
  if (auto tags = j.find("tags"); tags != j.end()) {
    if (!tags->is_array()) in.fail("tags is not an array");
    for (const auto& t : *tags) {
      if (!t.is_string()) in.fail("tags holds something other than a string");
      r.tags.push_back(t.get<std::string>());
    }
  }
  // The base and the steps' names: what decides whether the report's packages stand for the image
  // (build --compare-to reads a previous image's packages from its report).
  if (auto base = j.find("base"); base != j.end() && !base->is_null()) {
    if (!base->is_object()) in.fail("base is not an object");
    r.base = in.string(*base, "name", "base.", false);
    r.base_digest = in.string(*base, "digest", "base.", false);
  }
  if (auto steps = j.find("steps"); steps != j.end()) {
    if (!steps->is_array()) in.fail("steps is not an array");
    for (size_t i = 0; i < steps->size(); ++i) {
      const std::string path = "steps[" + std::to_string(i) + "].";
      const json& s = (*steps)[i];
      if (!s.is_object()) in.fail(path.substr(0, path.size() - 1) + " is not an object");
      StepReport step;
      step.name = in.string(s, "name", path);
      r.steps.push_back(std::move(step));
    }
  }
  const json& totals = in.object(j, "totals", "");
  r.totals.build_seconds = in.number(totals, "build_seconds", "totals.");
  r.totals.image_size = in.count(totals, "image_size", "totals.");
  r.totals.layers = in.count(totals, "layers", "totals.");

  const json& layers = in.array(j, "layers", "");
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string path = "layers[" + std::to_string(i) + "].";
    const json& l = layers[i];
    if (!l.is_object()) in.fail(path.substr(0, path.size() - 1) + " is not an object");
    LayerReport out;
    out.step = in.string(l, "step", path);
    out.name = in.string(l, "name", path, false);
    out.digest = in.string(l, "digest", path);
    out.diff_id = in.string(l, "diff_id", path);
    out.size = in.count(l, "size", path);
    if (auto u = l.find("uncompressed_size"); u != l.end() && !u->is_null()) out.uncompressed_size = in.count(l, "uncompressed_size", path);
    if (auto e = l.find("entries"); e != l.end() && !e->is_null()) out.entries = in.count(l, "entries", path);
    if (auto s = l.find("seconds"); s != l.end()) out.seconds = in.number(l, "seconds", path);
    if (auto c = l.find("cache_hit"); c != l.end()) {
      if (!c->is_boolean()) in.fail(path + "cache_hit is not true or false");
      out.cache_hit = c->get<bool>();
    }
    r.layers.push_back(std::move(out));
  }
  if (auto packages = j.find("packages"); packages != j.end()) {
    if (!packages->is_array()) in.fail("packages is not an array");
    for (size_t i = 0; i < packages->size(); ++i) {
      const std::string path = "packages[" + std::to_string(i) + "].";
      const json& p = (*packages)[i];
      if (!p.is_object()) in.fail(path.substr(0, path.size() - 1) + " is not an object");
      const std::string kind = in.string(p, "kind", path);
      auto parsed = parse_package_kind(kind);
      if (!parsed) in.fail(path + "kind \"" + kind + "\" is no package kind rockpack knows");
      r.packages.push_back({*parsed, in.string(p, "name", path), in.string(p, "version", path, false),
                            in.string(p, "layer", path, false)});
    }
  }
  return r;
}

}  // namespace rp::report
