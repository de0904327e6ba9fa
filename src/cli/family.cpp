#include "cli/family.hpp"

#include <filesystem>

#include "build/inputs.hpp"
#include "recipe/model.hpp"
#include "util/error.hpp"

namespace rp::cli {

std::vector<FamilyMember> load_family(const std::string& recipe_file, const std::vector<std::string>& set_pairs,
                                      const std::vector<std::string>& allow_paths) {
  if (recipe_file == "-")
    throw InputError("a recipe's variants need the recipe as a file, not on stdin",
                     "write it to a file, or build one variant: rockpack build - --variant NAME");
  recipe::LoadOptions options = build::load_options(set_pairs);
  for (const auto& dir : allow_paths) options.allow_paths.push_back(std::filesystem::absolute(dir).lexically_normal());
  std::vector<FamilyMember> out;
  for (const auto& v : recipe::list_variants(recipe_file, options)) {
    options.variant = v.name;
    recipe::Recipe r = recipe::load_recipe(recipe_file, options);
    out.push_back({v.name, v.args, r.tags, r.variant ? r.variant->floating : std::vector<std::string>{}});
  }
  return out;
}

std::string args_text(const std::vector<std::pair<std::string, std::string>>& args) {
  std::string s;
  for (const auto& [k, v] : args) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

}  // namespace rp::cli
