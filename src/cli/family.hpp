#pragma once
// A recipe's family: every variant of its `matrix:` (recipe/matrix_section.hpp) loaded with its args,
// so each has its final tags and floating tags. What `build --all-variants`, `validate`, `plan`,
// `rockpack matrix` and `rockpack publish` share.
#include <string>
#include <utility>
#include <vector>

namespace rp::cli {

struct FamilyMember {
  std::string name;
  std::vector<std::pair<std::string, std::string>> args;  // what the matrix sets
  std::vector<std::string> tags;
  std::vector<std::string> floating;
};

// Every variant of `recipe_file` (a file: a recipe on stdin cannot be read once per variant), in the
// matrix's order; empty for a recipe without `matrix:`. Throws RecipeError for a bad matrix or a
// variant that does not load.
std::vector<FamilyMember> load_family(const std::string& recipe_file, const std::vector<std::string>& set_pairs,
                                      const std::vector<std::string>& allow_paths = {});

// "K=V K2=V2": a variant's args for logs and tables.
std::string args_text(const std::vector<std::pair<std::string, std::string>>& args);

}  // namespace rp::cli
