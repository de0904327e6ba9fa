#pragma once
// Builds every planned layer (LayerBuilder::build_all: the ones to write side by side) and stacks
// them on the base into the final Image.
#include "assemble/layer_builder.hpp"
#include "image/image.hpp"
#include "plan/plan.hpp"

namespace rp {

struct AssembledImage {
  Image image;
  std::vector<BuiltLayer> new_layers;  // one per plan layer, in order
  std::vector<double> layer_seconds;   // wall time of each layer: its write, or its cache lookup
};

AssembledImage assemble_image(const BuildPlan& plan, LayerBuilder& builder);

// What names `layer` across builds (LayerBuilder::build's lineage): the recipe, its variant, the layer.
std::string layer_lineage(const BuildPlan& plan, const LayerPlan& layer);

}  // namespace rp
