#pragma once
// Builds every planned layer (in parallel with nothing: each layer already uses every core) and
// stacks them on the base into the final Image.
#include "assemble/layer_builder.hpp"
#include "image/image.hpp"
#include "plan/plan.hpp"

namespace rp {

struct AssembledImage {
  Image image;
  std::vector<BuiltLayer> new_layers;  // one per plan layer, in order
  std::vector<double> layer_seconds;   // wall time of each new layer's build (cache lookup included)
};

AssembledImage assemble_image(const BuildPlan& plan, LayerBuilder& builder);

}  // namespace rp
