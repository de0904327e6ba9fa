#pragma once
// The build's records for machines: --metadata-file (digests, tags, outputs, layers, base,
// resolution) and --resolved (what the steps resolved), each written whole or not at all.
#include <string>
#include <vector>

#include "image/image.hpp"
#include "plan/plan.hpp"

namespace rp::build {

void write_metadata(const std::string& file, const BuildPlan& plan, const SealedImage& sealed,
                    const std::vector<std::string>& outputs, const std::vector<std::string>& pushed);
void write_resolved(const std::string& file, const BuildPlan& plan, const SealedImage& sealed);

}  // namespace rp::build
