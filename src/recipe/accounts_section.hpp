#pragma once
// The recipe's `accounts:` section (docs/recipe.md, "accounts"): users and groups written natively
// into the image. Names, ids and paths are checked where they are written.
#include <yaml-cpp/yaml.h>

#include <optional>

#include "recipe/document_reader.hpp"
#include "recipe/model.hpp"

namespace rp::recipe {

// Reads `node`, the value of `accounts:` in one document, into `section` (created by the first
// document that has one). A later document's groups and users are appended; a name or id given
// twice in the merged section is an error.
void merge_accounts_section(const DocumentReader& in, const YAML::Node& node, std::optional<AccountsSection>& section);

}  // namespace rp::recipe
