#include "plan/image_assembler.hpp"


namespace rp {

// A content check is worth its read only when this very layer was built before. The variants of a
// family each have their own: gfx950's device layer is not gfx942's of another night, and reading it
// twice would buy nothing.
std::string layer_lineage(const BuildPlan& plan, const LayerPlan& layer) {
  return plan.name + (plan.variant.empty() ? "" : "@" + plan.variant) + "/" + layer.name;
}

AssembledImage assemble_image(const BuildPlan& plan, LayerBuilder& builder) {
  AssembledImage out;
  out.image = plan.base;
  out.image.config = plan.config;
  if (!out.image.config.contains("history")) out.image.config["history"] = nlohmann::json::array();
  out.image.annotations = plan.annotations;
  std::vector<LayerInput> inputs;
  for (const auto& layer : plan.layers) inputs.push_back({layer.name, &layer.entries, layer_lineage(plan, layer)});
  std::vector<BuiltLayer> built = builder.build_all(inputs, &out.layer_seconds);
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    nlohmann::json history = {{"created", plan.created}, {"created_by", plan.layers[i].created_by}};
    out.image.add_layer(built[i].layer, history);
    out.new_layers.push_back(built[i]);
  }
  return out;
}

}  // namespace rp
