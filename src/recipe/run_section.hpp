#pragma once
// The recipe's `run:` section (docs/run.md): a list of commands run in a sandbox against the image
// built so far, each producing one layer (src/plan/run_step).
#include <yaml-cpp/yaml.h>

#include <vector>

#include "recipe/document_reader.hpp"
#include "recipe/model.hpp"

namespace rp::recipe {


// Reads `node`, the value of `run:` in one document, appending its items to `items`. Every problem
// is reported at its file:line:column through `in`.
void read_run_section(const DocumentReader& in, const YAML::Node& node, std::vector<RunItem>& items);

}  // namespace rp::recipe
