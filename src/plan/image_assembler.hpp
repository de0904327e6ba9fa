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

}  // namespace rp
