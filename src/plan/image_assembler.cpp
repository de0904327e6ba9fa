#include "plan/image_assembler.hpp"

#include <chrono>

namespace rp {

AssembledImage assemble_image(const BuildPlan& plan, LayerBuilder& builder) {
  AssembledImage out;
  out.image = plan.base;
  out.image.config = plan.config;
  if (!out.image.config.contains("history")) out.image.config["history"] = nlohmann::json::array();
  out.image.annotations = plan.annotations;
  for (const auto& layer : plan.layers) {
    auto started = std::chrono::steady_clock::now();
    BuiltLayer built = builder.build(layer.name, layer.entries, plan.name + "/" + layer.name);
    out.layer_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    nlohmann::json history = {{"created", plan.created}, {"created_by", layer.created_by}};
    out.image.add_layer(built.layer, history);
    out.new_layers.push_back(built);
  }
  return out;
}

}  // namespace rp
