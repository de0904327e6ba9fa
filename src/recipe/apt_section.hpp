#pragma once
// The recipe's `apt:` section (docs/apt.md): one document's mapping merged onto the section.
// Package requests and sources are checked where they are written, so `rockpack validate` reports a
// malformed request or a missing key file at its file:line:column before anything is fetched.
#include <yaml-cpp/yaml.h>

#include <optional>

#include "recipe/document_reader.hpp"
#include "recipe/model.hpp"

namespace rp::recipe {

// Reads `node`, the value of `apt:` in one document, into `section` (created by the first document
// that has one). A later document's packages and sources are appended; scalars are replaced.
void merge_apt_section(const DocumentReader& in, const YAML::Node& node, std::optional<AptSection>& section);

}  // namespace rp::recipe
