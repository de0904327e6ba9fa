#pragma once
// A layer a step has finished while the step still has work to do -- the apt packages' files while
// their maintainer scripts run in the sandbox -- can be written into the store meanwhile, on the
// cores that work leaves idle. Assembling the image then finds it in the store by its key (the same
// entries give the same bytes) instead of writing it after every step has ended.
#include "plan/plan.hpp"
#include "recipe/model.hpp"

namespace rp {

class LayerPrebuild {
 public:
  virtual ~LayerPrebuild() = default;
  // Starts writing `layer` (its entries final: no later step or split changes them) in the
  // background and returns at once. Never throws: a layer that could not be written here is
  // written by the assembly, which reports the failure.
  virtual void start(const BuildPlan& plan, const recipe::Recipe& recipe, const LayerPlan& layer) = 0;
};

}  // namespace rp
