#pragma once
// `rockpack build RECIPE --all-variants`: every variant of the recipe's `matrix:` in one run, sharing
// one store, one registry session and one registry layer cache. Variants are planned and assembled
// one after the other, so a file two variants need is downloaded once and a layer two variants share
// is compressed once (the second finds it in the store). Nothing is written or pushed until every
// variant is built: a failing variant fails the build naming itself and the family stays unpublished,
// unless --keep-going delivers the variants that did build (the exit status is still 1). What is one
// per image — its lock (--locked), its SBOM, its resolution, its comparison with a previous image —
// is one per variant, named by a pattern with {variant} in it (build/variant_files.hpp).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/registry_flags.hpp"

namespace rp::cli {

// The subset of `build`'s flags a family build takes (cmd_build.cpp fills it from its own).
struct FamilyBuildArgs {
  std::string recipe;
  std::vector<std::string> set;
  std::vector<std::string> allow_paths;
  std::vector<std::string> outputs;  // every variant's tags go into each
  std::vector<std::string> push;     // repositories; each variant is pushed with its own tags
  std::string cache_dir;
  std::string compression;
  unsigned threads = 0;
  bool no_cache = false;
  std::string revision;
  std::string source;
  std::string metadata_file;         // the family: every variant's digests, tags, layers
  std::string report_file;           // the family report (JSON): per variant and in total
  std::string report_markdown_file;  // the same as Markdown
  bool insecure_downloads = false;
  bool strict = false;
  std::string cache_from;
  std::string cache_to;
  std::string platform;
  bool dry_run = false;  // plan every variant and print the plans
  bool json = false;
  bool store_only = false;
  bool keep_going = false;
  RegistryFlags registry;
  // Per variant: a pattern with {variant} (build/variant_files.hpp), one file or reference per variant.
  std::string sbom_file;            // --sbom: each variant's SBOM (attached to its pushed tags)
  std::string sbom_format = "spdx";
  std::string resolved_file;        // --resolved: each variant's resolution
  std::string compare_to;           // --compare-to: each variant's previous image (e.g. REPO:latest-{variant})
  std::string compare_report_file;  // --compare-report: that image's report, when no referrer has it
  bool locked = false;              // --locked: each variant from its own lock (RECIPE.VARIANT.lock)
  std::string lock_file;            // --lock: a pattern with {variant}
};

void run_family_build(const FamilyBuildArgs& args);

// Whether `recipe_file` has a matrix: (a recipe on stdin is not looked into: it cannot be read twice).
bool recipe_has_variants(const std::string& recipe_file, const std::vector<std::string>& set_pairs);

// --variant NAME and --all-variants, for build (and --variant for plan, validate).
inline void add_variant_flags(CLI::App* cmd, std::string& variant, bool& all_variants) {
  cmd->add_option("--variant", variant,
                  "Build one variant of the recipe's matrix: (its args and tags); `rockpack matrix RECIPE` lists them");
  cmd->add_flag("--all-variants", all_variants,
                "Build every variant of the recipe's matrix: in one run: shared files downloaded and shared layers "
                "compressed once, one OCI layout (or push) with every variant's tags; --sbom, --resolved, --compare-to "
                "and --lock then name one file or image per variant with {variant} in them");
}

}  // namespace rp::cli
