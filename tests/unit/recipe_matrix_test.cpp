// The recipe's matrix: expansion (GitHub Actions' include/exclude rules), variant names, tags and the
// strict checks, through the loader as a user meets them.
#include <doctest/doctest.h>

#include <algorithm>

#include "recipe/model.hpp"
#include "test_helpers.hpp"

using rp::recipe::list_variants;
using rp::recipe::load_recipe;
using rp::recipe::LoadOptions;
using rp::recipe::RecipeError;
using rp::test::TempDir;

namespace {

const char* kFamilyHead = R"(name: fam
args:
  PYTHON: "3.11"
  TARGET: null
  EXTRA: none
tags: ["base-${TARGET}"]
)";

std::vector<std::string> variant_names(const std::filesystem::path& path, LoadOptions opts = {}) {
  std::vector<std::string> out;
  for (const auto& v : list_variants(path, opts)) out.push_back(v.name);
  return out;
}

std::string matrix_error(const TempDir& dir, const std::string& matrix, LoadOptions opts = {}) {
  auto path = dir.write("recipe.yaml", std::string(kFamilyHead) + matrix);
  try {
    (void)list_variants(path, opts);
    if (!opts.variant.empty()) (void)load_recipe(path, opts);
    return "";
  } catch (const RecipeError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("matrix: the product in order, the last axis fastest, names from the values") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", std::string(kFamilyHead) + R"(matrix:
  TARGET: [gfx942, gfx950]
  PYTHON: ["3.11", "3.12"]
)");
  CHECK(variant_names(path) == std::vector<std::string>{"gfx942-3.11", "gfx942-3.12", "gfx950-3.11", "gfx950-3.12"});
  auto variants = list_variants(path, {});
  CHECK(variants[2].args == std::vector<std::pair<std::string, std::string>>{{"TARGET", "gfx950"}, {"PYTHON", "3.11"}});
}

TEST_CASE("matrix: exclude drops partial matches; include extends without overwriting, else adds") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", std::string(kFamilyHead) + R"(matrix:
  TARGET: [gfx942, gfx950, gfx1100]
  PYTHON: ["3.11", "3.12"]
  exclude:
    - {TARGET: gfx1100, PYTHON: "3.11"}
  include:
    - {TARGET: gfx942, EXTRA: big}          # extends both gfx942 variants
    - {TARGET: gfx942, EXTRA: bigger}       # overwrites what the include before added
    - {PYTHON: "3.12", TARGET: gfx950, EXTRA: new}
    - {TARGET: gfx1151, PYTHON: "3.13"}     # fits none: a variant of its own
)");
  auto variants = list_variants(path, {});
  std::vector<std::string> names;
  for (const auto& v : variants) names.push_back(v.name);
  // The derived name joins every value the variant sets, EXTRA included.
  CHECK(names == std::vector<std::string>{"gfx942-3.11-bigger", "gfx942-3.12-bigger", "gfx950-3.11", "gfx950-3.12-new",
                                          "gfx1100-3.12", "gfx1151-3.13"});
  LoadOptions opts;
  opts.variant = "gfx942-3.12-bigger";
  auto r = load_recipe(path, opts);
  REQUIRE(r.variant);
  CHECK(r.args.at("EXTRA") == "bigger");
  CHECK(r.args.at("PYTHON") == "3.12");
  CHECK(r.tags == std::vector<std::string>{"base-gfx942"});  // the recipe's tags, per variant
  CHECK(r.variant_count == 6);
}

TEST_CASE("matrix: name, tag and floating templates per variant; include adds tags") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", std::string(kFamilyHead) + R"(matrix:
  TARGET: [gfx942, gfx950]
  PYTHON: ["3.11"]
  name: "${TARGET}-py${PYTHON}"
  tags: ["nightly-${DATE}-${TARGET}"]
  floating: ["latest-${TARGET}"]
  include:
    - {TARGET: gfx942, tags: ["nightly-${DATE}"], floating: [latest]}
)");
  LoadOptions opts;
  opts.source_date_epoch = 1700000000;  // 2023-11-14
  CHECK(variant_names(path, opts) == std::vector<std::string>{"gfx942-py3.11", "gfx950-py3.11"});
  opts.variant = "gfx942-py3.11";
  auto r = load_recipe(path, opts);
  CHECK(r.tags == std::vector<std::string>{"nightly-20231114-gfx942", "nightly-20231114"});
  CHECK(r.variant->floating == std::vector<std::string>{"latest-gfx942", "latest"});
  opts.variant = "gfx950-py3.11";
  r = load_recipe(path, opts);
  CHECK(r.tags == std::vector<std::string>{"nightly-20231114-gfx950"});
  CHECK(r.variant->floating == std::vector<std::string>{"latest-gfx950"});
  // --set of an arg the matrix does not vary applies to every variant.
  opts.set_args = {{"EXTRA", "more"}};
  CHECK(variant_names(path, opts) == std::vector<std::string>{"gfx942-py3.11", "gfx950-py3.11"});
  r = load_recipe(path, opts);
  CHECK(r.args.at("EXTRA") == "more");
  CHECK(r.args.at("TARGET") == "gfx950");
}

TEST_CASE("matrix: strict errors, each at its line") {
  TempDir dir;
  CHECK(matrix_error(dir, "matrix:\n  TARGTE: [a]\n").find("'TARGTE' in matrix is not an arg") != std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGTE: [a]\n").find("TARGET") != std::string::npos);  // did you mean
  CHECK(matrix_error(dir, "matrix:\n  TARGET: []\n").find("non-empty list") != std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a, a]\n").find("appears twice") != std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a, b]\n  exclude: [{TARGET: c}]\n").find("matches no combination") !=
        std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a]\n  exclude: [{PYTHON: '3.11'}]\n").find("not an axis") != std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a, b]\n  exclude: [{TARGET: a}, {TARGET: b}]\n").find("excludes every") !=
        std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a]\n  tags: [\"x-${NOPE}\"]\n").find("NOPE") != std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a, b]\n  name: fixed\n").find("two variants are named 'fixed'") !=
        std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [A/B]\n  name: \"${TARGET}\"\n").find("not valid") != std::string::npos);
  CHECK(matrix_error(dir, "matrix: [a]\n").find("'matrix' must be a mapping") != std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a, b]\n  include: [{}]\n").find("non-empty mapping") != std::string::npos);
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a, b]\n  tags: [\"bad tag\"]\n", [] {
          LoadOptions o;
          o.variant = "a";
          return o;
        }()).find("not a valid tag") != std::string::npos);
  // A product past the bound is refused before it is made.
  std::string big = "matrix:\n  TARGET: [";
  for (int i = 0; i < 20; ++i) big += (i ? ", t" : "t") + std::to_string(i);
  big += "]\n  PYTHON: [";
  for (int i = 0; i < 20; ++i) big += (i ? ", p" : "p") + std::to_string(i);
  big += "]\n";
  CHECK(matrix_error(dir, big).find("400 variants, more than 256") != std::string::npos);
  // The variant chosen must exist, and its matrix args cannot be --set.
  LoadOptions unknown;
  unknown.variant = "c";
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a, b]\n", unknown).find("no variant 'c'") != std::string::npos);
  LoadOptions conflict;
  conflict.variant = "a";
  conflict.set_args = {{"TARGET", "z"}};
  CHECK(matrix_error(dir, "matrix:\n  TARGET: [a, b]\n", conflict).find("set by the matrix") != std::string::npos);
}

TEST_CASE("matrix: only in the recipe; a fragment's is an error; a recipe without one has no variants") {
  TempDir dir;
  dir.write("layers/frag.yaml", "matrix:\n  TARGET: [a]\n");
  auto path = dir.write("recipe.yaml", std::string(kFamilyHead) + "include: [frag]\nmatrix:\n  TARGET: [a]\n");
  LoadOptions opts;
  opts.variant = "a";
  CHECK_THROWS_WITH_AS(load_recipe(path, opts), doctest::Contains("'matrix' belongs in the recipe"), RecipeError);
  auto plain = dir.write("plain.yaml", "name: plain\n");
  CHECK(list_variants(plain, {}).empty());
  CHECK(load_recipe(plain, {}).variant_count == 0);
}
