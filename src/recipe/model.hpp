#pragma once
// The typed recipe, schema v1: what the YAML says once includes are merged, args applied and every
// ${VAR} substituted. Later stages never see YAML. See docs/recipe.md.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "image/platform.hpp"
#include "recipe/diagnostics.hpp"

namespace rp::recipe {

namespace fs = std::filesystem;

inline constexpr const char* kDefaultLayer = "files";

// One `files:` item: inline content, or a file or directory tree from the build host.
struct FileStep {
  SourceLocation where;
  std::optional<std::string> content;
  std::optional<fs::path> src;  // absolute, resolved against the declaring file's directory
  std::string dest;             // absolute path in the image
  std::optional<uint32_t> mode;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string layer = kDefaultLayer;
};

struct SymlinkStep {
  SourceLocation where;
  std::string path;    // absolute path in the image
  std::string target;  // as written: relative or absolute
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string layer = kDefaultLayer;
};

struct Recipe {
  fs::path file;
  std::vector<fs::path> included;  // fragments, in merge order
  std::string name;
  std::map<std::string, std::string> args;  // effective values: defaults overridden by --set
  Platform platform;
  std::string base = "scratch";
  SourceLocation base_where;
  std::vector<FileStep> files;
  std::vector<SymlinkStep> symlinks;
  std::vector<std::pair<std::string, std::string>> env;  // in declaration order
  std::optional<std::string> user;
  std::optional<std::string> workdir;
  std::optional<std::vector<std::string>> entrypoint;
  std::optional<std::vector<std::string>> cmd;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<std::string> tags;
};

struct LoadOptions {
  std::map<std::string, std::string> set_args;  // --set KEY=VALUE
  std::optional<int64_t> source_date_epoch;     // from the environment
  int64_t now = 0;                              // build time, seconds since the epoch (for DATE)
};

// Loads, merges, substitutes and validates. Throws RecipeError listing every problem found.
Recipe load_recipe(const fs::path& file, const LoadOptions& options);

// The built-in variables for these options: DATE (UTC YYYYMMDD of SOURCE_DATE_EPOCH, else of `now`)
// and SOURCE_DATE_EPOCH (its value, "0" when unset).
std::map<std::string, std::string> builtin_variables(const LoadOptions& options);

}  // namespace rp::recipe
