#pragma once
// The recipe's `python:` section (docs/recipe.md, "python"): converting one document's mapping onto the
// section merged so far, and the checks that only make sense once every document is merged.
#include <yaml-cpp/yaml.h>

#include <optional>

#include "recipe/document_reader.hpp"
#include "recipe/model.hpp"

namespace rp::recipe {

// Reads `node`, the value of `python:` in one document, and merges it into `section` (created by the
// first document that has one). Fragments come first and the recipe last: scalars, and the choice of
// interpreter or standalone, are replaced by later documents; lists are appended; `layers` merge by name.
void merge_python_section(const DocumentReader& in, const YAML::Node& node, std::optional<PythonSection>& section);

// Checks of the merged section: an interpreter is chosen and something is to be installed (by the
// section itself, or by a `rocm:` section when `rocm_installs` is set).
void check_python_section(const PythonSection& section, Diagnostics& diag, bool rocm_installs = false);

}  // namespace rp::recipe
