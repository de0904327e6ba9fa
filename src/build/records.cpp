#include "build/records.hpp"

#include <nlohmann/json.hpp>

#include "util/fs.hpp"

namespace rp::build {

void write_metadata(const std::string& file, const BuildPlan& plan, const SealedImage& sealed,
                    const std::vector<std::string>& outputs, const std::vector<std::string>& pushed) {
  nlohmann::json meta = {{"name", plan.name},
                         {"manifest_digest", sealed.manifest.digest},
                         {"config_digest", sealed.config.digest},
                         {"tags", plan.tags},
                         {"outputs", nlohmann::json::array()},
                         {"layers", nlohmann::json::array()}};
  for (const auto& o : outputs) meta["outputs"].push_back(o);
  if (!plan.base_name.empty()) meta["base"] = {{"name", plan.base_name}, {"digest", plan.base_digest}};
  meta["pushed"] = pushed;
  if (nlohmann::json resolution = resolution_json(plan); !resolution.empty()) meta["resolution"] = resolution;
  for (const auto& l : sealed.layers)
    meta["layers"].push_back({{"digest", l.blob.digest}, {"size", l.blob.size}, {"diff_id", l.diff_id}});
  write_file_atomic(file, meta.dump(2) + "\n");
}

void write_resolved(const std::string& file, const BuildPlan& plan, const SealedImage& sealed) {
  nlohmann::json resolved = {{"rockpack_resolution", 1}, {"name", plan.name}, {"image", sealed.manifest.digest}};
  resolved.update(resolution_json(plan));
  write_file_atomic(file, resolved.dump(2) + "\n");
}

}  // namespace rp::build
