#pragma once
// The recipe's `rocm:` section (docs/recipe.md, "rocm"): one document's mapping merged onto the
// section, and the checks that need every document merged (the section needs `python:`).
#include <yaml-cpp/yaml.h>

#include <optional>

#include "recipe/document_reader.hpp"
#include "recipe/model.hpp"

namespace rp::recipe {

// Reads `node`, the value of `rocm:` in one document, into `section` (created by the first document
// that has one). Later documents replace scalars and lists; `env` merges by name.
void merge_rocm_section(const DocumentReader& in, const YAML::Node& node, std::optional<RocmSection>& section);

// Checks of the merged recipe: an index and targets are given, and a python section exists.
void check_rocm_section(const Recipe& recipe, Diagnostics& diag);

}  // namespace rp::recipe
