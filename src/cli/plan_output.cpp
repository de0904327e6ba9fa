#include "cli/plan_output.hpp"

#include <cstdio>

#include "assemble/layer_builder.hpp"
#include "cli/progress_display.hpp"

namespace rp::cli {

namespace {

// A layer planned without its contents: the python step in StepMode::kResolve lists package layers
// it has not downloaded yet.
bool contents_known(const LayerPlan& layer) {
  return !layer.entries.empty() || (layer.step != "python" && layer.step != "rocm");
}

std::string short_digest(const std::string& digest) { return digest.size() > 19 ? digest.substr(0, 19) : digest; }

}  // namespace

nlohmann::json plan_json(const BuildPlan& plan, const ContentStore& store, const Compression& compression) {
  nlohmann::json out;
  out["name"] = plan.name;
  out["tags"] = plan.tags;
  std::string platform = plan.config.value("os", "") + "/" + plan.config.value("architecture", "");
  if (!plan.config.value("variant", "").empty()) platform += "/" + plan.config.value("variant", "");
  out["platform"] = platform;
  out["base"] = plan.base_name.empty() ? nlohmann::json(nullptr)
                                       : nlohmann::json{{"name", plan.base_name}, {"digest", plan.base_digest}};
  // Layers of the base, as they are, then the planned ones.
  nlohmann::json layers = nlohmann::json::array();
  size_t index = 0;
  for (const auto& l : plan.base.layers)
    layers.push_back({{"index", index++}, {"step", "base"}, {"name", "base"}, {"entries", nullptr},
                      {"digest", l.blob.digest}, {"diff_id", l.diff_id}});
  LayerBuilder builder(const_cast<ContentStore&>(store), LayerOptions{compression, plan.source_date_epoch, 1, true});
  for (const auto& l : plan.layers) {
    nlohmann::json j = {{"index", index++}, {"step", l.step}, {"name", l.name}};
    if (contents_known(l)) {
      j["entries"] = l.entries.size();
      if (auto hit = builder.cached(l.entries)) {
        j["digest"] = hit->layer.blob.digest;
        j["diff_id"] = hit->layer.diff_id;
      }
    } else {
      j["entries"] = nullptr;
    }
    layers.push_back(std::move(j));
  }
  out["layers"] = layers;
  nlohmann::json components = nlohmann::json::array();
  for (const auto& [step, c] : plan.components)
    components.push_back({{"step", step}, {"kind", std::string(component_kind_name(c.kind))}, {"name", c.name},
                          {"version", c.version}, {"url", c.url}, {"sha256", c.sha256}, {"size", c.size},
                          {"origin", c.origin}, {"layer", c.layer},
                          {"verification", c.verification.empty() ? "hash" : c.verification}});
  out["components"] = components;
  out["resolution"] = resolution_json(plan);
  return out;
}

void print_plan(const BuildPlan& plan, const ContentStore& store, const Compression& compression, bool json) {
  nlohmann::json p = plan_json(plan, store, compression);
  if (json) {
    std::printf("%s\n", p.dump(2).c_str());
    return;
  }
  std::printf("image %s (%s)\n", plan.name.c_str(), p["platform"].get<std::string>().c_str());
  if (plan.base_name.empty())
    std::printf("base  scratch\n");
  else
    std::printf("base  %s %s\n", plan.base_name.c_str(), plan.base_digest.empty() ? "(no manifest)" : plan.base_digest.c_str());
  std::printf("\n%-4s %-10s %-20s %8s  %s\n", "#", "STEP", "LAYER", "ENTRIES", "DIGEST");
  for (const auto& l : p["layers"]) {
    std::string entries = l["entries"].is_null() ? "-" : std::to_string(l["entries"].get<size_t>());
    std::string digest = l.contains("digest") ? short_digest(l["digest"].get<std::string>()) : "(not built yet)";
    std::printf("%-4zu %-10s %-20s %8s  %s\n", l["index"].get<size_t>(), l["step"].get<std::string>().c_str(),
                l["name"].get<std::string>().c_str(), entries.c_str(), digest.c_str());
  }
  if (!plan.components.empty()) {
    std::printf("\n%-10s %-32s %-28s %-12s %-16s %s\n", "STEP", "NAME", "VERSION", "LAYER", "SHA256", "URL");
    for (const auto& [step, c] : plan.components) {
      std::string sha = c.sha256.empty() ? "-" : c.sha256.substr(0, 16);
      std::printf("%-10s %-32s %-28s %-12s %-16s %s\n", step.c_str(), c.name.c_str(), c.version.c_str(),
                  c.layer.c_str(), sha.c_str(), c.url.c_str());
    }
  }
  std::printf("\ntags: ");
  for (size_t i = 0; i < plan.tags.size(); ++i) std::printf("%s%s", i ? ", " : "", plan.tags[i].c_str());
  std::printf("%s\n", plan.tags.empty() ? "(none)" : "");
}

}  // namespace rp::cli
