#pragma once
// The recipe's `matrix:` (docs/recipe.md, "Variants"): a family of images from one recipe. Its axes
// are declared args, each with a list of values; `exclude:` and `include:` work as in a GitHub
// Actions `strategy.matrix`; `name:`, `tags:` and `floating:` are templates evaluated per variant.
// Read raw (the values ARE args, so nothing in it is substituted when it is read) and expanded into
// named variants here; the loader then loads the recipe once per variant with the variant's args.
#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recipe/diagnostics.hpp"
#include "recipe/document_reader.hpp"

namespace rp::recipe {

// The most variants a matrix may expand to (GitHub Actions runs at most 256 jobs per matrix).
inline constexpr size_t kMaxVariants = 256;

// One `include:` or `exclude:` item: arg values, and for include the tags it adds.
struct MatrixEntry {
  SourceLocation where;
  std::vector<std::pair<std::string, std::string>> values;  // as written, in order
  std::vector<std::string> tags;                            // include: extra tag templates
  std::vector<std::string> floating;                        // include: extra floating tag templates
};

struct MatrixSection {
  SourceLocation where;
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;  // arg -> values, in order
  std::vector<MatrixEntry> exclude;
  std::vector<MatrixEntry> include;
  std::string name_template;                     // empty: the variant's values joined by '-'
  std::optional<std::vector<std::string>> tags;  // templates; nullopt: the recipe's own tags
  std::vector<std::string> floating;             // templates of the tags `rockpack publish` moves
};

// One image of the family.
struct Variant {
  std::string name;
  std::vector<std::pair<std::string, std::string>> args;  // axes in order, then args includes added
  std::vector<std::string> extra_tags;                    // templates, from include items
  std::vector<std::string> extra_floating;
};

// Reads `node`, the value of `matrix:`. `declared` are the recipe's args (names only matter):
// axes and include/exclude keys must be among them. Problems go to `in`'s diagnostics; nullopt then.
std::optional<MatrixSection> read_matrix_section(const DocumentReader& in, const YAML::Node& node,
                                                 const std::map<std::string, std::string>& declared);

// The variants, in a fixed order: the axes' product in the order written (the last axis varies
// fastest) minus the excluded ones, each extended by the include items that fit it; then the include
// items that fit none, as variants of their own. GitHub's rules: an exclude item drops every
// combination it matches in full (a partial item matches more); an include item is added to every
// combination whose original values it does not change (it may change what an earlier include
// added), and becomes a combination of its own when it fits none. Names come from `name:` or the
// values joined by '-', and must be unique. Errors (duplicate names, an exclude that drops nothing,
// too many variants) go to `diag`.
std::vector<Variant> expand_matrix(const MatrixSection& matrix, Diagnostics& diag);

// A variant's name as written by a user: [a-z0-9][a-z0-9._-]*, at most 128 characters.
bool valid_variant_name(const std::string& name);

// Templates substituted with `vars` (the variant's final args and the built-ins), each checked as a
// tag; duplicates dropped. Problems go to `diag` at `where`.
std::vector<std::string> variant_tags(const std::vector<std::string>& templates,
                                      const std::map<std::string, std::string>& vars, const SourceLocation& where,
                                      Diagnostics& diag);

}  // namespace rp::recipe
