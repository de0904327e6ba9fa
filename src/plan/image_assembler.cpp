#include "plan/image_assembler.hpp"

#include <chrono>

namespace rp {

namespace {
// What names a layer across builds (LayerBuilder::build): a content check is worth its read only
// when this very layer was built before. The variants of a family each have their own: gfx950's
// device layer is not gfx942's of another night, and reading it twice would buy nothing.
std::string lineage_of(const BuildPlan& plan, const LayerPlan& layer) {
  return plan.name + (plan.variant.empty() ? "" : "@" + plan.variant) + "/" + layer.name;
}
}  // namespace

AssembledImage assemble_image(const BuildPlan& plan, LayerBuilder& builder) {
  AssembledImage out;
  out.image = plan.base;
  out.image.config = plan.config;
  if (!out.image.config.contains("history")) out.image.config["history"] = nlohmann::json::array();
  out.image.annotations = plan.annotations;
  for (const auto& layer : plan.layers) {
    auto started = std::chrono::steady_clock::now();
    BuiltLayer built = builder.build(layer.name, layer.entries, lineage_of(plan, layer));
    out.layer_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    nlohmann::json history = {{"created", plan.created}, {"created_by", layer.created_by}};
    out.image.add_layer(built.layer, history);
    out.new_layers.push_back(built);
  }
  return out;
}

}  // namespace rp
